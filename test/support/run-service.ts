/** Starts the real `clawbox run` as a child process and waits for its listening line. */
import { type ChildProcess, spawn } from "node:child_process";
import { CLAWBOX_BIN } from "./spawn-cli.ts";

export interface RunningService {
  child: ChildProcess;
  /** The URL from the listening line. */
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when `text` appears in stdout or stderr after the listening line. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
}

export function startService(
  args: string[],
  env: Record<string, string>,
  command: string[] = [CLAWBOX_BIN, "run"],
): Promise<RunningService> {
  const [bin, ...rest] = command as [string, ...string[]];
  const child = spawn(bin, [...rest, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString("utf8");
    for (const l of listeners) l();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const waitFor = (test: () => boolean, what: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      if (test()) return resolve();
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out waiting for ${what}; output:\n${out}`));
      }, timeoutMs);
      const check = () => {
        if (!test()) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve();
      };
      listeners.add(check);
      void exited.then(() => {
        if (listeners.has(check)) {
          clearTimeout(timer);
          listeners.delete(check);
          reject(new Error(`exited before ${what}; output:\n${out}`));
        }
      });
    });
  return waitFor(() => /listening on (http:\S+)/.test(out), "the listening line", 60_000).then(
    () => ({
      child,
      url: /listening on (http:\S+)/.exec(out)?.[1] ?? "",
      output: () => out,
      exited,
      waitFor: (text, timeoutMs = 60_000) => waitFor(() => out.includes(text), text, timeoutMs),
    }),
  );
}
