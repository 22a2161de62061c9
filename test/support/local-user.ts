/**
 * Commands run as another, unprivileged local user of the machine (uid/gid 65534,
 * "nobody"), the attacker of docs/SECURITY.md who shares the box with the service. Tests
 * run as root, so `setpriv` (util-linux) drops to that user; when the tests already run
 * unprivileged the command runs as is. Without setpriv as root the command runs as root
 * and a warning says so: the network attacks stay the same, file-permission checks don't.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const SETPRIV = "/usr/bin/setpriv";
const isRoot = process.getuid?.() === 0;
export const CAN_DROP_TO_LOCAL_USER = !isRoot || existsSync(SETPRIV);
if (!CAN_DROP_TO_LOCAL_USER)
  console.warn(`${SETPRIV} is absent: "local user" commands run as root in these tests`);

export const LOCAL_USER_UID = 65534;

/** argv that runs `command` as the unprivileged local user. */
export function asLocalUser(command: string[]): string[] {
  if (!isRoot || !existsSync(SETPRIV)) return command;
  return [
    SETPRIV,
    `--reuid=${LOCAL_USER_UID}`,
    `--regid=${LOCAL_USER_UID}`,
    "--clear-groups",
    ...command,
  ];
}

export interface LocalRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command` as the unprivileged local user and waits for it (at most 60 s). Async,
 * so servers in the test process (fakes) keep answering meanwhile.
 */
export function runAsLocalUser(command: string[]): Promise<LocalRun> {
  const [bin, ...args] = asLocalUser(command) as [string, ...string[]];
  const child = spawn(bin, args, { cwd: "/", stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** `curl` as the local user: the response's status and body. */
export async function curlAsLocalUser(args: string[]): Promise<{ status: number; body: string }> {
  const run = await runAsLocalUser([
    "curl",
    "-s",
    "-S",
    "--max-time",
    "30",
    "-w",
    "\nHTTP %{http_code}",
    ...args,
  ]);
  const match = /\nHTTP (\d{3})$/.exec(run.stdout);
  if (!match) throw new Error(`curl failed: ${run.stderr || run.stdout}`);
  return { status: Number(match[1]), body: run.stdout.slice(0, match.index) };
}

/**
 * Whether the local user can run `bin` (a checkout under a 0700 home, such as /root,
 * is out of its reach); with the reason when not.
 */
export function localUserCanRun(bin: string): { ok: true } | { ok: false; reason: string } {
  const [cmd, ...args] = asLocalUser(["sh", "-c", 'test -x "$1" && test -r "$1"', "sh", bin]) as [
    string,
    ...string[],
  ];
  const result = spawnSync(cmd, args, { cwd: "/" });
  return result.status === 0
    ? { ok: true }
    : {
        ok: false,
        reason: `uid ${LOCAL_USER_UID} cannot run ${bin} (a parent folder is closed to it)`,
      };
}

/**
 * argv that runs a service the way an unprivileged service runs: as uid 65534 when that
 * user can reach `bin`, else as root with every capability dropped (no CAP_SYS_PTRACE,
 * no CAP_DAC_*), which /proc judges like any other user for its own processes.
 */
export function asUnprivilegedService(
  bin: string,
  args: string[],
): { argv: string[]; uid: number | undefined } {
  if (!isRoot) return { argv: [bin, ...args], uid: process.getuid?.() };
  if (process.env.CLAWBOX_TEST_SERVICE_AS !== "root-without-caps" && localUserCanRun(bin).ok)
    return { argv: asLocalUser([bin, ...args]), uid: LOCAL_USER_UID };
  return { argv: [SETPRIV, "--bounding-set=-all", "--inh-caps=-all", bin, ...args], uid: 0 };
}
