/**
 * `exec` (owner-only): runs a shell command in the workspace with a timeout and an
 * output cap. The command runs in its own process group, and the whole group is
 * killed on timeout or abort, so no grandchild outlives the call.
 */
import { spawn } from "node:child_process";
import type { AgentTool } from "./tool.ts";
import { capText, errorOutput } from "./tool-output.ts";
import { resolveInWorkspace } from "./workspace-path.ts";

export interface ExecLimits {
  timeoutMs: number;
  maxOutputChars: number;
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
          stdio: ["ignore", "pipe", "pipe"],
        });
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
        }, timeoutMs);
        const onAbort = () => {
          ended = "aborted";
          killGroup(child.pid);
        };
        ctx.signal.addEventListener("abort", onAbort, { once: true });
        if (ctx.signal.aborted) onAbort();
        const finish = (code: number | null, signal: NodeJS.Signals | null, spawnError?: Error) => {
          clearTimeout(timer);
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
        };
        child.on("error", (error) => finish(null, null, error));
        child.on("close", (code, signal) => finish(code, signal));
      });
    },
  };
}
