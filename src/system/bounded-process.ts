/**
 * Runs one external program (ffmpeg, rpicam-still, ssh) with a deadline and a cap on
 * what it may print, without a shell: arguments go to the program as they are, so no
 * value from TOOLS.md or the model can inject a command. The program runs in its own
 * process group, and the whole group is killed on timeout, abort or overflow, so no
 * grandchild outlives the call. Never throws for the program's own failures: the
 * result says what happened.
 */
import { spawn } from "node:child_process";

export interface BoundedProcessOptions {
  timeoutMs: number;
  /** Bytes of stdout kept; past it the process is killed and `overflow` is set. */
  maxStdoutBytes: number;
  /** Characters of stderr kept (the tail is what explains a failure). */
  maxStderrChars?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  stdin?: Uint8Array;
}

export interface BoundedProcessResult {
  /** Exit code, or null when it ended by a signal or did not start. */
  code: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  overflow: boolean;
  /** Set when the program could not be started (e.g. ENOENT: not installed). */
  spawnError?: NodeJS.ErrnoException;
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

export function runBoundedProcess(
  command: string,
  args: string[],
  options: BoundedProcessOptions,
): Promise<BoundedProcessResult> {
  const maxStderr = options.maxStderrChars ?? 4000;
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      detached: true,
      env: options.env ?? process.env,
      stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    const state = { timedOut: false, aborted: false, overflow: false };
    child.stdout?.on("data", (chunk: Buffer) => {
      if (state.overflow) return;
      size += chunk.length;
      if (size > options.maxStdoutBytes) {
        state.overflow = true;
        killGroup(child.pid);
        return;
      }
      chunks.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-maxStderr);
    });
    if (options.stdin && child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(options.stdin);
    }
    const timer = setTimeout(() => {
      state.timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    const onAbort = () => {
      state.aborted = true;
      killGroup(child.pid);
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    let settled = false;
    const finish = (code: number | null, spawnError?: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({ code, stdout: Buffer.concat(chunks), stderr: stderr.trim(), ...state, spawnError });
    };
    child.on("error", (error: NodeJS.ErrnoException) => finish(null, error));
    child.on("close", (code) => finish(code));
  });
}
