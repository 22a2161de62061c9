/**
 * `exec` (owner-only): runs a shell command in the workspace with a timeout and an
 * output cap, through the system area's bounded process: its own process group, the
 * whole group killed on timeout or abort (no grandchild outlives the call), the pipes
 * no longer waited on at the deadline (a `setsid sleep 8 &` daemon cannot hang it), and
 * a short grace for the pipes to drain after the shell exits. The command sees a minimal
 * environment (PATH, HOME, LANG…, plus `tools.exec.passEnv`), never clawbox's own
 * secrets such as CLAWBOX_TOKEN or provider API keys.
 */
import { runBoundedProcess } from "../system/index.ts";
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
    async execute(args, ctx) {
      let cwd: string;
      try {
        cwd =
          typeof args.cwd === "string"
            ? resolveInWorkspace(ctx.workspace, args.cwd)
            : ctx.workspace;
      } catch (error) {
        return errorOutput(error);
      }
      const timeoutMs = typeof args.timeoutMs === "number" ? args.timeoutMs : limits.timeoutMs;
      let output = "";
      const result = await runBoundedProcess("sh", ["-c", String(args.command)], {
        cwd,
        timeoutMs,
        env: commandEnvironment(process.env, limits.passEnv),
        signal: ctx.signal,
        exitGraceMs: EXIT_GRACE_MS,
        onOutput(chunk) {
          const text = chunk.toString("utf8");
          if (output.length < limits.maxOutputChars * 2) output += text;
          ctx.onUpdate?.(text);
        },
      });
      const text = capText(output, limits.maxOutputChars);
      if (result.spawnError) return errorOutput(result.spawnError);
      if (result.timedOut) {
        return {
          content: [
            {
              type: "text",
              text: `TOOL_FAILED: exec timed out after ${timeoutMs} ms; process group killed\n${text}`,
            },
          ],
          isError: true,
        };
      }
      if (result.aborted) {
        return {
          content: [{ type: "text", text: `ABORTED: exec stopped; process group killed\n${text}` }],
          isError: true,
        };
      }
      const status = result.code === null ? `signal ${result.signal}` : `exit code ${result.code}`;
      return {
        content: [{ type: "text", text: `${text}\n[${status}]`.trimStart() }],
        isError: result.code !== 0,
        details: { exitCode: result.code },
      };
    },
  };
}
