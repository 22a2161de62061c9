/**
 * `edit`: replaces an exact piece of text in a workspace file; refuses ambiguous edits.
 * The file is replaced atomically (temp file, fsync, rename). Files over
 * `tools.files.maxFileBytes` are neither read nor produced.
 */
import { readFileSync, statSync } from "node:fs";
import { ClawboxError } from "../errors/index.ts";
import { writeFileAtomic } from "../system/index.ts";
import { checkEditableSize, checkWriteSize, DEFAULT_FILE_LIMITS } from "./file-limits.ts";
import { resolveToolPath } from "./owner-files.ts";
import type { AgentTool } from "./tool.ts";
import { errorOutput, textOutput } from "./tool-output.ts";

export const editTool: AgentTool = {
  name: "edit",
  group: "fs",
  description:
    "Replace `oldText` with `newText` in a workspace file. `oldText` must occur exactly once unless `replaceAll`.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string" },
      oldText: { type: "string", minLength: 1 },
      newText: { type: "string" },
      replaceAll: { type: "boolean" },
    },
    required: ["path", "oldText", "newText"],
    additionalProperties: false,
  },
  async execute(args, ctx) {
    try {
      const where = String(args.path);
      const path = resolveToolPath(ctx, where, "write");
      const limits = ctx.fileLimits ?? DEFAULT_FILE_LIMITS;
      let text: string;
      try {
        checkEditableSize(statSync(path).size, limits, `edit: ${where}`);
        text = readFileSync(path, "utf8");
      } catch (error) {
        if (error instanceof ClawboxError) throw error;
        throw new ClawboxError("TOOL_FAILED", `edit: ${where}: no such file`, {
          hint: "create it with write",
        });
      }
      const oldText = String(args.oldText);
      const count = text.split(oldText).length - 1;
      if (count === 0)
        throw new ClawboxError("TOOL_FAILED", `edit: ${where}: oldText not found`, {
          hint: "read the file and copy the text exactly",
        });
      if (count > 1 && args.replaceAll !== true) {
        throw new ClawboxError("TOOL_FAILED", `edit: ${where}: oldText occurs ${count} times`, {
          hint: "include more surrounding text, or set replaceAll",
        });
      }
      const edited = text.split(oldText).join(String(args.newText));
      checkWriteSize(path, Buffer.byteLength(edited), limits, `edit: ${where}`);
      writeFileAtomic(path, edited);
      return textOutput(`edited ${where} (${count} replacement${count === 1 ? "" : "s"})`);
    } catch (error) {
      return errorOutput(error);
    }
  },
};
