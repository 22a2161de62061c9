/** `write`: creates or replaces a workspace file (parent folders created). */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { AgentTool } from "./tool.ts";
import { errorOutput, textOutput } from "./tool-output.ts";
import { resolveInWorkspace } from "./workspace-path.ts";

export const writeTool: AgentTool = {
  name: "write",
  group: "fs",
  description: "Create or overwrite a text file in the workspace.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path relative to the workspace" },
      content: { type: "string" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  async execute(args, ctx) {
    try {
      const path = resolveInWorkspace(ctx.workspace, String(args.path));
      mkdirSync(dirname(path), { recursive: true });
      const content = String(args.content);
      writeFileSync(path, content);
      return textOutput(`wrote ${Buffer.byteLength(content)} bytes to ${String(args.path)}`);
    } catch (error) {
      return errorOutput(error);
    }
  },
};
