/**
 * `read`: a workspace text file, optionally a line range. The file is streamed in
 * chunks and reading stops once the range or the character cap is filled, so a huge
 * file never sits in memory whole. Only regular files are read: a FIFO would block the
 * run forever and a device file never ends. Owners may also read the bundled and
 * managed skills and the user guide (read-only roots).
 */
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  openSync,
  readSync,
  statSync,
} from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { ClawboxError } from "../errors/index.ts";
import { resolveToolPath } from "./owner-files.ts";
import type { AgentTool } from "./tool.ts";
import { errorOutput, textOutput } from "./tool-output.ts";

const MAX_CHARS = 50_000;
const CHUNK_BYTES = 64 * 1024;

interface LineRange {
  text: string;
  /** First line not returned, when reading stopped before the end of the file. */
  nextOffset?: number;
  /** True when the character cap cut the range. */
  capped: boolean;
}

/** Lines `offset`…`offset+limit-1` of the open file, at most MAX_CHARS characters. */
function readLines(fd: number, offset: number, limit: number | undefined): LineRange {
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const wantedEnd = limit === undefined ? Number.POSITIVE_INFINITY : offset + limit;
  let line = 1;
  let partial = "";
  const kept: string[] = [];
  let keptChars = 0;
  const take = (text: string): boolean => {
    if (line >= offset && line < wantedEnd) {
      kept.push(text);
      keptChars += text.length + 1;
    }
    line++;
    return line < wantedEnd && keptChars < MAX_CHARS;
  };
  for (;;) {
    const n = readSync(fd, buffer, 0, CHUNK_BYTES, null);
    const chunk = n > 0 ? decoder.write(buffer.subarray(0, n)) : decoder.end();
    const parts = (partial + chunk).split("\n");
    partial = n > 0 ? (parts.pop() ?? "") : "";
    for (const part of parts) {
      if (!take(part)) {
        const text = kept.join("\n");
        const capped = keptChars >= MAX_CHARS;
        return { text: capped ? text.slice(0, MAX_CHARS) : text, nextOffset: line, capped };
      }
    }
    if (n === 0) return { text: kept.join("\n"), capped: false };
  }
}

export const readTool: AgentTool = {
  name: "read",
  group: "fs",
  description:
    "Read a text file in the workspace (or a skill's SKILL.md / the user guide at the path the prompt gives). Optional 1-based `offset` line and `limit` lines.",
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
    const where = String(args.path);
    try {
      const path = resolveToolPath(ctx, where, "read");
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) throw new ClawboxError("TOOL_FAILED", `read: ${where}: no such file`);
      if (stat.isDirectory())
        throw new ClawboxError("TOOL_FAILED", `read: ${where} is a folder, not a file`);
      if (!stat.isFile())
        throw new ClawboxError("TOOL_FAILED", `read: ${where} is not a regular file`, {
          hint: "only ordinary files can be read (not FIFOs, sockets or devices)",
        });
      // O_NONBLOCK: if the file was swapped for a FIFO since the check, open does not hang.
      const fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
      try {
        if (!fstatSync(fd).isFile())
          throw new ClawboxError("TOOL_FAILED", `read: ${where} is not a regular file`);
        const offset = typeof args.offset === "number" ? args.offset : 1;
        const limit = typeof args.limit === "number" ? args.limit : undefined;
        const range = readLines(fd, offset, limit);
        const more = range.capped
          ? `\n[… cut at ${MAX_CHARS} characters; continue with offset ${(range.nextOffset ?? 2) - 1} or a smaller limit]`
          : "";
        return textOutput(`${range.text}${more}`, { path: where, offset });
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      return errorOutput(error);
    }
  },
};
