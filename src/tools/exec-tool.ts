/**
 * `exec` (owner-only): runs a shell command in the workspace with a timeout and an
 * output cap. The command runs in its own process group, and the whole group is
 * killed on timeout or abort, so no grandchild outlives the call. At the deadline the
 * call stops waiting on the output pipes too: a daemon that left the group
 * (`setsid sleep 8 &`) and still holds them cannot hang it. When the shell exits, the
 * pipes get a short grace to drain, then the call returns. The command sees a minimal
 * environment (PATH, HOME, LANG…, plus `tools.exec.passEnv`), never clawbox's own
 * secrets such as CLAWBOX_TOKEN or provider API keys.
 */
import { spawn } from "node:child_process";
import type { AgentTool } from "./tool.ts";
import { capText, errorOutput } from "./tool-output.ts";
import { resolveInWorkspace } from "./workspace-path.ts";

export interface ExecLimits {
  timeoutMs: number;
  maxOutputChars: number;
  /** Names of extra environment variables passed to commands. */
  passEnv?: string[];
}

const BASE_ENV = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"];
/** After the shell exits, how long a background child may keep the pipes before we stop reading. */
const EXIT_GRACE_MS = 500;

/** The environment a command sees: the basics and what the owner chose to pass. */
export function commandEnvironment(
  source: NodeJS.ProcessEnv,
  passEnv: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string> = { TERM: "dumb", SHELL: "/bin/sh" };
  for (const name of [...BASE_ENV, ...passEnv]) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return env;
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

export function createExecTool(limits: ExecLimits): AgentTool {
  return {
    name: "exec",
    group: "runtime",
    ownerOnly: true,
    description: `Run a shell command in the workspace (sh -c). Times out after ${limits.timeoutMs} ms unless timeoutMs is given; output is capped.`,
    parameters: {
      type: "object",
      properties: {
        command: { type: "string", minLength: 1 },
        cwd: { type: "string", description: "Folder relative to the workspace" },
        timeoutMs: { type: "integer", minimum: 100, maximum: 600000 },
      },
      required: ["command"],
      additionalProperties: false,
    },
    execute(args, ctx) {
      let cwd: string;
      try {
        cwd =
          typeof args.cwd === "string"
            ? resolveInWorkspace(ctx.workspace, args.cwd)
            : ctx.workspace;
      } catch (error) {
        return Promise.resolve(errorOutput(error));
      }
      const timeoutMs = typeof args.timeoutMs === "number" ? args.timeoutMs : limits.timeoutMs;
      return new Promise((resolve) => {
        const child = spawn("sh", ["-c", String(args.command)], {
          cwd,
          detached: true,
          env: commandEnvironment(process.env, limits.passEnv),
          stdio: ["ignore", "pipe", "pipe"],
        });
        let settled = false;
        let exitTimer: ReturnType<typeof setTimeout> | undefined;
        /** Stops reading the pipes (a setsid'd daemon may hold them forever). */
        const stopReading = () => {
          child.stdout.destroy();
          child.stderr.destroy();
        };
        let output = "";
        let ended: "timeout" | "aborted" | undefined;
        const onData = (chunk: Buffer) => {
          const text = chunk.toString("utf8");
          if (output.length < limits.maxOutputChars * 2) output += text;
          ctx.onUpdate?.(text);
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
        const timer = setTimeout(() => {
          ended = "timeout";
          killGroup(child.pid);
          stopReading();
          finish(child.exitCode, child.signalCode);
        }, timeoutMs);
        const onAbort = () => {
          ended = "aborted";
          killGroup(child.pid);
          stopReading();
          finish(child.exitCode, child.signalCode);
        };
        ctx.signal.addEventListener("abort", onAbort, { once: true });
        if (ctx.signal.aborted) onAbort();
        function finish(code: number | null, signal: NodeJS.Signals | null, spawnError?: Error) {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearTimeout(exitTimer);
          ctx.signal.removeEventListener("abort", onAbort);
          const text = capText(output, limits.maxOutputChars);
          if (spawnError) return resolve(errorOutput(spawnError));
          if (ended === "timeout") {
            return resolve({
              content: [
                {
                  type: "text",
                  text: `TOOL_FAILED: exec timed out after ${timeoutMs} ms; process group killed\n${text}`,
                },
              ],
              isError: true,
            });
          }
          if (ended === "aborted") {
            return resolve({
              content: [
                { type: "text", text: `ABORTED: exec stopped; process group killed\n${text}` },
              ],
              isError: true,
            });
          }
          const status = code === null ? `signal ${signal}` : `exit code ${code}`;
          resolve({
            content: [{ type: "text", text: `${text}\n[${status}]`.trimStart() }],
            isError: code !== 0,
            details: { exitCode: code },
          });
        }
        child.on("error", (error) => finish(null, null, error));
        child.on("close", (code, signal) => finish(code, signal));
        child.on("exit", (code, signal) => {
          exitTimer = setTimeout(() => {
            killGroup(child.pid); // what is left of the group still holds the pipes
            stopReading();
            finish(code, signal);
          }, EXIT_GRACE_MS);
        });
      });
    },
  };
}
