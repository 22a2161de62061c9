/** Spawns the real `bin/clawbox` program (as a user would) and collects its output. */
import { spawn } from "node:child_process";
import { join } from "node:path";

export const CLAWBOX_BIN = join(import.meta.dirname, "..", "..", "bin", "clawbox");

export interface SpawnedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function spawnCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<SpawnedRun> {
  return new Promise((resolve) => {
    const child = spawn(CLAWBOX_BIN, args, {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
