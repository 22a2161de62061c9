/**
 * Runs one external program (ffmpeg, rpicam-still, ssh, the owner's `exec` shell) with a
 * deadline and a cap on what it may print, without a shell of its own: arguments go to
 * the program as they are, so no value from TOOLS.md or the model can inject a command
 * (`exec` asks for `sh -c` by name). The program runs in its own process group, and the
 * whole group is killed on timeout, abort or overflow, so no grandchild outlives the
 * call; at that point the call also stops reading the pipes, so a daemon that left the
 * group (`setsid sleep 8 &`) and still holds them cannot hang it. With `exitGraceMs`,
 * the pipes get that long to drain after the program exits, then the rest of the group
 * is killed and the call returns. Never throws for the program's own failures: the
 * result says what happened.
 */
import { spawn } from "node:child_process";

export interface BoundedProcessOptions {
  timeoutMs: number;
  /**
   * Bytes of stdout kept; past it the process is killed and `overflow` is set. Without
   * it (only with `onOutput`), stdout is handed over and not kept.
   */
  maxStdoutBytes?: number;
  /** Each chunk of stdout and stderr as it arrives (must not throw). */
  onOutput?: (chunk: Buffer) => void;
  /** After the program exits, how long the pipes may stay open before the call returns. */
  exitGraceMs?: number;
  cwd?: string;
  /** Characters of stderr kept (the tail is what explains a failure). */
  maxStderrChars?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  stdin?: Uint8Array;
}

export interface BoundedProcessResult {
  /** Exit code, or null when it ended by a signal, was cut off or did not start. */
  code: number | null;
  /** The signal that ended it, when one did. */
  signal: NodeJS.Signals | null;
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
  const keepStdout = options.maxStdoutBytes !== undefined;
  const maxStdout = options.maxStdoutBytes ?? Number.POSITIVE_INFINITY;
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
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
      options.onOutput?.(chunk);
      if (!keepStdout) return;
      size += chunk.length;
      if (size > maxStdout) {
        state.overflow = true;
        killGroup(child.pid);
        return;
      }
      chunks.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      options.onOutput?.(chunk);
      stderr = (stderr + chunk.toString("utf8")).slice(-maxStderr);
    });
    if (options.stdin && child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(options.stdin);
    }
    /** Kills what is left of the group and stops waiting on pipes it may still hold. */
    const cutOff = () => {
      killGroup(child.pid);
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish(child.exitCode, child.signalCode);
    };
    const timer = setTimeout(() => {
      state.timedOut = true;
      cutOff();
    }, options.timeoutMs);
    const onAbort = () => {
      state.aborted = true;
      cutOff();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    let exitTimer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    function finish(
      code: number | null,
      signal: NodeJS.Signals | null,
      spawnError?: NodeJS.ErrnoException,
    ) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(exitTimer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(chunks),
        stderr: stderr.trim(),
        ...state,
        spawnError,
      });
    }
    child.on("error", (error: NodeJS.ErrnoException) => finish(null, null, error));
    child.on("close", (code, signal) => finish(code, signal));
    if (options.exitGraceMs !== undefined) {
      const grace = options.exitGraceMs;
      child.on("exit", (code, signal) => {
        exitTimer = setTimeout(() => {
          killGroup(child.pid);
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish(code, signal);
        }, grace);
      });
    }
  });
}
