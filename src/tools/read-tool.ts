/** `read`: a workspace text file, optionally a line range; long files are capped. */
import { readFileSync, statSync } from "node:fs";
import { ClawboxError } from "../errors/index.ts";
import type { AgentTool } from "./tool.ts";
import { capText, errorOutput, textOutput } from "./tool-output.ts";
import { resolveInWorkspace } from "./workspace-path.ts";

const MAX_CHARS = 50_000;

export const readTool: AgentTool = {
  name: "read",
  group: "fs",
  description:
    "Read a text file in the workspace. Optional 1-based `offset` line and `limit` lines.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path relative to the workspace" },
      offset: { type: "integer", minimum: 1 },
      limit: { type: "integer", minimum: 1 },
    },
    required: ["path"],
    additionalProperties: false,
  },
  async execute(args, ctx) {
    try {
      const path = resolveInWorkspace(ctx.workspace, String(args.path));
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) throw new ClawboxError("TOOL_FAILED", `read: ${String(args.path)}: no such file`);
      if (stat.isDirectory())
        throw new ClawboxError("TOOL_FAILED", `read: ${String(args.path)} is a folder, not a file`);
      const text = readFileSync(path, "utf8");
      const offset = typeof args.offset === "number" ? args.offset : 1;
      const limit = typeof args.limit === "number" ? args.limit : undefined;
      const lines = text.split("\n");
      const slice = lines.slice(offset - 1, limit ? offset - 1 + limit : undefined).join("\n");
      return textOutput(capText(slice, MAX_CHARS), {
        path: String(args.path),
        lines: lines.length,
      });
    } catch (error) {
      return errorOutput(error);
    }
  },
};
