/**
 * Drives the real `bin/clawbox` in a pseudo-terminal (python3's pty module through
 * pty-relay.py): type text, press Ctrl-C, wait for output. Used by the Ctrl-C tests,
 * where raw-mode readline sees the key instead of a SIGINT.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { CLAWBOX_BIN } from "./spawn-cli.ts";

const RELAY = join(import.meta.dirname, "pty-relay.py");

export const HAVE_PYTHON_PTY =
  spawnSync("python3", ["-c", "import pty, os; os.waitstatus_to_exitcode"]).status === 0;

export interface PtyCli {
  /** Everything the terminal showed so far (ANSI sequences included). */
  output(): string;
  type(text: string): void;
  ctrlC(): void;
  /** Resolves when `pattern` appears in the output after `from` (a previous output length). */
  waitFor(pattern: RegExp | string, from?: number, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
  kill(): void;
}

/** `command` runs instead of bin/clawbox (e.g. `["npm", "start", "--"]` with `cwd`). */
export function ptyCli(
  args: string[],
  env: Record<string, string>,
  options: { command?: string[]; cwd?: string } = {},
): PtyCli {
  const command = options.command ?? [CLAWBOX_BIN];
  const child: ChildProcess = spawn("python3", [RELAY, ...command, ...args], {
    env: { ...process.env, TERM: "dumb", ...env },
    stdio: ["pipe", "pipe", "pipe"],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let out = "";
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString("utf8");
    for (const w of waiters) w();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    output: () => out,
    type: (text) => child.stdin?.write(text),
    ctrlC: () => child.stdin?.write("\x03"),
    waitFor(pattern, from = 0, timeoutMs = 60_000) {
      const matches = () =>
        typeof pattern === "string"
          ? out.slice(from).includes(pattern)
          : pattern.test(out.slice(from));
      return new Promise((resolve, reject) => {
        if (matches()) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${String(pattern)}; output:\n${out}`));
        }, timeoutMs);
        const check = () => {
          if (!matches()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        void exited.then(() => {
          if (!matches() && waiters.has(check)) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`exited before ${String(pattern)}; output:\n${out}`));
          }
        });
      });
    },
    exited,
    kill: () => child.kill("SIGKILL"),
  };
}
