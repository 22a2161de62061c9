/**
 * `read`: a workspace text file, optionally a line range. The file is streamed in
 * chunks and reading stops once the range or the character cap is filled, so a huge
 * file never sits in memory whole: lines are cut at MAX_LINE_CHARS and at most
 * MAX_SCAN_BYTES are read (a 64 MB file without a newline once took 11 s and 1.3 GB). Only regular files are read: a FIFO would block the
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
/** Longest line kept whole; the rest of a longer line is skipped (minified files, logs). */
export const MAX_LINE_CHARS = 4_000;
/** Bytes of a file `read` looks at, at most, whatever the range asked for. */
export const MAX_SCAN_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

interface LineRange {
  text: string;
  /** First line not returned, when reading stopped before the end of the file. */
  nextOffset?: number;
  /** True when the character cap cut the range. */
  capped: boolean;
  /** Lines longer than MAX_LINE_CHARS that were cut. */
  longLines: number;
  /** True when reading stopped at MAX_SCAN_BYTES. */
  scanCapped: boolean;
}

/**
 * Lines `offset`…`offset+limit-1` of the open file, at most MAX_CHARS characters. Memory
 * and time stay bounded whatever the file: a line is kept up to MAX_LINE_CHARS (the rest
 * is skipped as it streams by, so a file without newlines is never joined whole), and at
 * most MAX_SCAN_BYTES are read.
 */
function readLines(fd: number, offset: number, limit: number | undefined): LineRange {
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const wantedEnd = limit === undefined ? Number.POSITIVE_INFINITY : offset + limit;
  let line = 1;
  let partial = "";
  let partialCut = false;
  let longLines = 0;
  let scanned = 0;
  const kept: string[] = [];
  let keptChars = 0;
  const take = (text: string, cut: boolean): boolean => {
    if (line >= offset && line < wantedEnd) {
      const shown = cut ? `${text} [… line cut at ${MAX_LINE_CHARS} characters]` : text;
      if (cut) longLines++;
      kept.push(shown);
      keptChars += shown.length + 1;
    }
    line++;
    return line < wantedEnd && keptChars < MAX_CHARS;
  };
  const result = (nextOffset: number | undefined, scanCapped: boolean): LineRange => {
    const text = kept.join("\n");
    const capped = keptChars >= MAX_CHARS;
    return {
      text: capped ? text.slice(0, MAX_CHARS) : text,
      ...(nextOffset !== undefined ? { nextOffset } : {}),
      capped,
      longLines,
      scanCapped,
    };
  };
  for (;;) {
    const n = scanned < MAX_SCAN_BYTES ? readSync(fd, buffer, 0, CHUNK_BYTES, null) : 0;
    scanned += n;
    const chunk = n > 0 ? decoder.write(buffer.subarray(0, n)) : decoder.end();
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf("\n", start);
      const piece = chunk.slice(start, newline < 0 ? chunk.length : newline);
      if (!partialCut) {
        partial += piece;
        if (partial.length > MAX_LINE_CHARS) {
          partial = partial.slice(0, MAX_LINE_CHARS);
          partialCut = true;
        }
      }
      if (newline < 0) break;
      if (!take(partial, partialCut)) return result(line, false);
      partial = "";
      partialCut = false;
      start = newline + 1;
    }
    if (n === 0) {
      const stoppedEarly = scanned >= MAX_SCAN_BYTES;
      take(partial, partialCut);
      return result(stoppedEarly ? line : undefined, stoppedEarly);
    }
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
        const notes = [
          range.capped
            ? `[… cut at ${MAX_CHARS} characters; continue with offset ${(range.nextOffset ?? 2) - 1} or a smaller limit]`
            : "",
          range.scanCapped
            ? `[… stopped after the first ${MAX_SCAN_BYTES / (1024 * 1024)} MB of the file; read will not look further]`
            : "",
          range.longLines > 0
            ? `[${range.longLines} line${range.longLines === 1 ? "" : "s"} longer than ${MAX_LINE_CHARS} characters cut]`
            : "",
        ].filter(Boolean);
        const more = notes.length > 0 ? `\n${notes.join("\n")}` : "";
        return textOutput(`${range.text}${more}`, { path: where, offset });
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      return errorOutput(error);
    }
  },
};
