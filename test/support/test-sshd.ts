/**
 * A real OpenSSH server for tests: /usr/sbin/sshd on 127.0.0.1 and a free port, with a
 * temp host key, a temp user key in its authorized_keys and a temp sshd_config, run as
 * the current user (UsePAM no, StrictModes no). `available` is false (with the reason)
 * when sshd or ssh-keygen is not installed.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

export const SSHD = "/usr/sbin/sshd";
export const sshdMissing = !existsSync(SSHD)
  ? `${SSHD} is not installed (Debian openssh-server)`
  : spawnSync("ssh-keygen", ["-?"]).error
    ? "ssh-keygen is not installed (Debian openssh-client)"
    : undefined;

export interface TestSshd {
  port: number;
  user: string;
  dir: string;
  /** Private key the server accepts. */
  userKey: string;
  /** A known_hosts line for this server. */
  knownHostsLine: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function keygen(path: string): void {
  const out = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path]);
  if (out.status !== 0) throw new Error(`ssh-keygen failed: ${out.stderr}`);
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`sshd exited: ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sshd did not listen: ${log()}`);
}

class PortTakenError extends Error {}

/** Starts a throwaway sshd; retried on a fresh port when another process took the port. */
export async function startTestSshd(): Promise<TestSshd> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce();
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 5) throw error;
    }
  }
}

async function startOnce(): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-sshd-"));
  const hostKey = join(dir, "host_ed25519");
  const userKey = join(dir, "user_ed25519");
  keygen(hostKey);
  keygen(userKey);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(`${userKey}.pub`));
  const port = await freePort();
  // os.userInfo() can say "unknown" under Bun; id -un asks the system.
  const user = spawnSync("id", ["-un"], { encoding: "utf8" }).stdout.trim() || userInfo().username;
  // sshd running as root needs its privilege separation directory.
  if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const config = join(dir, "sshd_config");
  writeFileSync(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "UsePAM no",
      "StrictModes no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin prohibit-password",
      `AllowUsers ${user}`,
      "LogLevel ERROR",
      "",
    ].join("\n"),
  );
  const child = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  await waitForPort(port, child, () => stderr);
  const hostPub = readFileSync(`${hostKey}.pub`, "utf8").trim().split(/\s+/).slice(0, 2).join(" ");
  // The port was free a moment ago; on a busy machine another process (a qemu port
  // forward, another test's server) can take it first, and then sshd exits while the
  // connect above reached someone else. Only our sshd answers with our host key.
  const scan = spawnSync(
    "ssh-keyscan",
    ["-T", "10", "-t", "ed25519", "-p", String(port), "127.0.0.1"],
    {
      encoding: "utf8",
    },
  );
  if (child.exitCode !== null || !(scan.stdout ?? "").includes(hostPub.split(" ")[1] as string)) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw new PortTakenError(`port ${port} answered with another server: ${stderr}`);
  }
  return {
    port,
    user,
    dir,
    userKey,
    knownHostsLine: `[127.0.0.1]:${port} ${hostPub}`,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      if (child.exitCode === null) await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
