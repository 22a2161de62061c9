/**
 * Who listens on a TCP port of this machine, read from /proc (no `ss` or `lsof` needed):
 * the address, the socket's owner (uid and user name) and, when this user may look
 * into that process (its own, or any as root), the pid and command. Used where a
 * console port held by someone else is a danger (docs/SECURITY.md, "The console's
 * port"): `clawbox run` names the process it refuses to start beside, `doctor` names
 * the one it fails on. Only read on those paths, never at a normal start.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface PortHolder {
  /** The listening address, as written in a URL host: `127.0.0.1`, `::1`, `0.0.0.0`, `::`. */
  address: string;
  port: number;
  uid: number;
  /** The uid's name from /etc/passwd, when it has one. */
  user?: string;
  pid?: number;
  /** The process's command name (`/proc/<pid>/comm`). */
  command?: string;
  /** Its command line, arguments joined by spaces (`/proc/<pid>/cmdline`). */
  commandLine?: string;
}

const LISTEN = "0A";

/** `0100007F` (a little-endian 32-bit word of /proc/net/tcp) → its four bytes in order. */
function wordBytes(hex: string): number[] {
  const bytes = [0, 2, 4, 6].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  return bytes.reverse();
}

function decodeAddress(hex: string): string {
  if (hex.length === 8) return wordBytes(hex).join(".");
  const bytes = [0, 8, 16, 24].flatMap((i) => wordBytes(hex.slice(i, i + 8)));
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255)
    return `::ffff:${bytes.slice(12).join(".")}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  // The shortest form of the two addresses this file's callers compare against.
  const full = groups.join(":");
  if (full === "0:0:0:0:0:0:0:0") return "::";
  if (full === "0:0:0:0:0:0:0:1") return "::1";
  return full;
}

function userNames(): Map<number, string> {
  const names = new Map<number, string>();
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const [name, , uid] = line.split(":");
      if (name && uid && /^\d+$/.test(uid)) names.set(Number(uid), name);
    }
  } catch {
    // No passwd file (a container): uids stay numbers.
  }
  return names;
}

/** pid and command of the process holding socket `inode`, when this user may see it. */
function ownerOf(inode: string): { pid: number; command: string; commandLine: string } | undefined {
  const target = `socket:[${inode}]`;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // another user's process, or gone
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) !== target) continue;
      } catch {
        continue;
      }
      let command = "?";
      let commandLine = "";
      try {
        command = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
        commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      } catch {}
      return { pid: Number(pid), command, commandLine };
    }
  }
  return undefined;
}

/** Every socket listening on TCP `port`, on any address (IPv4 and IPv6). */
export function portHolders(port: number): PortHolder[] {
  const found: PortHolder[] = [];
  let names: Map<number, string> | undefined;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue; // no IPv6 on this kernel
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, , state] = fields.slice(1, 4);
      if (!local || state !== LISTEN) continue;
      const [addressHex, portHex] = local.split(":");
      if (!addressHex || Number.parseInt(portHex ?? "", 16) !== port) continue;
      const uid = Number(fields[7]);
      names ??= userNames();
      const user = names.get(uid);
      const owner = ownerOf(fields[9] ?? "");
      found.push({
        address: decodeAddress(addressHex),
        port,
        uid,
        ...(user ? { user } : {}),
        ...(owner
          ? { pid: owner.pid, command: owner.command, commandLine: owner.commandLine }
          : {}),
      });
    }
  }
  return found;
}

/** "pid 4242 (python3) of user nobody (uid 65534)", or without the pid when it is hidden. */
export function describePortHolder(holder: PortHolder): string {
  const who = `user ${holder.user ?? "?"} (uid ${holder.uid})`;
  return holder.pid !== undefined
    ? `pid ${holder.pid} (${holder.command ?? "?"}) of ${who}`
    : `a process of ${who}`;
}

/**
 * The addresses the console holds for `host`: itself, and on loopback its twin in the
 * other family (a browser may send `localhost` to 127.0.0.1 or to ::1). Every IPv4
 * interface (`0.0.0.0`) includes 127.0.0.1, so ::1 is held too; `::` takes both
 * families itself.
 */
export function addressesToHold(host: string): string[] {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost") return ["127.0.0.1", "::1"];
  if (bare === "0.0.0.0") return ["0.0.0.0", "::1"];
  if (bare === "::1") return ["::1", "127.0.0.1"];
  if (/^127\.\d+\.\d+\.\d+$/.test(bare)) return [bare, "::1"];
  return [bare];
}

/** Whether a listener on `held` takes connections meant for `address` (same or wildcard). */
export function blocks(held: string, address: string): boolean {
  const v4 = !address.includes(":");
  return (
    held === address ||
    held === "::" ||
    (v4 && (held === "0.0.0.0" || held === `::ffff:${address}` || held === "::ffff:0.0.0.0"))
  );
}

/** `address` as a URL host: IPv6 in brackets. */
export function hostForUrl(address: string): string {
  return address.includes(":") ? `[${address}]` : address;
}
