/**
 * `write`: creates or replaces a workspace file (parent folders created). The file is
 * replaced atomically (temp file, fsync, rename), so a power cut never leaves half of it.
 * Refused over `tools.files.maxFileBytes` or below `tools.files.minFreeDiskBytes` free.
 */
import { writeFileAtomic } from "../system/index.ts";
import { checkWriteSize, DEFAULT_FILE_LIMITS } from "./file-limits.ts";
import { resolveToolPath } from "./owner-files.ts";
import type { AgentTool } from "./tool.ts";
import { errorOutput, textOutput } from "./tool-output.ts";

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
      const path = resolveToolPath(ctx, String(args.path), "write");
      const content = String(args.content);
      checkWriteSize(
        path,
        Buffer.byteLength(content),
        ctx.fileLimits ?? DEFAULT_FILE_LIMITS,
        `write: ${String(args.path)}`,
      );
      writeFileAtomic(path, content);
      return textOutput(`wrote ${Buffer.byteLength(content)} bytes to ${String(args.path)}`);
    } catch (error) {
      return errorOutput(error);
    }
  },
};
