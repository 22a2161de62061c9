/** Spawns the real `bin/clawbox` program (as a user would) and collects its output. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

export const CLAWBOX_BIN = join(import.meta.dirname, "..", "..", "bin", "clawbox");

export interface SpawnedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running CLI whose output can be read while it runs. */
export interface LiveCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  done: Promise<SpawnedRun>;
}

export function startCli(args: string[], env: Record<string, string>): LiveCli {
  const child = spawn(CLAWBOX_BIN, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const done = new Promise<SpawnedRun>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

export function spawnCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<SpawnedRun> {
  const live = startCli(args, env);
  const timer = setTimeout(() => live.child.kill("SIGKILL"), timeoutMs);
  return live.done.finally(() => clearTimeout(timer));
}
