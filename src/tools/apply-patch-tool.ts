/**
 * `apply_patch`: the "*** Begin Patch" format (Add File / Update File / Delete File,
 * hunks of ` ` context, `-` removed and `+` added lines). Every path is confined to the
 * workspace and every hunk of every file is checked before anything is written: a
 * patch applies whole or not at all. Each file is replaced atomically (temp file,
 * fsync, rename); if a later file fails to write, the files already written are put
 * back as they were.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { removeFileDurable, writeFileAtomic } from "../system/index.ts";
import { checkEditableSize, checkWriteSize, DEFAULT_FILE_LIMITS } from "./file-limits.ts";
import { resolveToolPath } from "./owner-files.ts";
import type { AgentTool, ToolContext } from "./tool.ts";
import { errorOutput, textOutput } from "./tool-output.ts";

type FileOp =
  | { kind: "add"; path: string; lines: string[] }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; hunks: string[][] };

const bad = (message: string) =>
  new ClawboxError("TOOL_INVALID_ARGS", `apply_patch: ${message}`, {
    hint: 'start with "*** Begin Patch", then "*** Update File: path" and hunks, end with "*** End Patch"',
  });

export function parsePatch(patch: string): FileOp[] {
  const lines = patch.replace(/\r\n/g, "\n").split("\n");
  const start = lines.findIndex((line) => line.trim() === "*** Begin Patch");
  if (start < 0) throw bad('missing "*** Begin Patch"');
  const ops: FileOp[] = [];
  let op: FileOp | undefined;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "*** End Patch") return ops;
    const header = /^\*\*\* (Add|Delete|Update) File: (.+)$/.exec(line);
    if (header) {
      const path = (header[2] ?? "").trim();
      op =
        header[1] === "Add"
          ? { kind: "add", path, lines: [] }
          : header[1] === "Delete"
            ? { kind: "delete", path }
            : { kind: "update", path, hunks: [] };
      ops.push(op);
      continue;
    }
    if (!op) {
      if (line.trim() === "") continue;
      throw bad(`line ${i + 1}: expected a file header, got "${line.slice(0, 60)}"`);
    }
    if (op.kind === "add") {
      if (!line.startsWith("+")) throw bad(`line ${i + 1}: lines of an added file start with "+"`);
      op.lines.push(line.slice(1));
    } else if (op.kind === "update") {
      if (line.startsWith("@@")) op.hunks.push([]);
      else if (line === "*** End of File") continue;
      else {
        if (op.hunks.length === 0) op.hunks.push([]);
        op.hunks.at(-1)?.push(line === "" ? " " : line);
      }
    } else if (line.trim() !== "") throw bad(`line ${i + 1}: a deleted file takes no lines`);
  }
  throw bad('missing "*** End Patch"');
}

function applyHunks(text: string, hunks: string[][], where: string): string {
  let lines = text.split("\n");
  let cursor = 0;
  for (const [index, hunk] of hunks.entries()) {
    const before: string[] = [];
    const after: string[] = [];
    for (const line of hunk) {
      const mark = line[0];
      const body = line.slice(1);
      if (mark === " ") {
        before.push(body);
        after.push(body);
      } else if (mark === "-") before.push(body);
      else if (mark === "+") after.push(body);
      else throw bad(`${where}: hunk ${index + 1}: lines start with " ", "-" or "+"`);
    }
    const at = findLines(lines, before, cursor);
    if (at < 0)
      throw new ClawboxError(
        "TOOL_FAILED",
        `apply_patch: ${where}: hunk ${index + 1} does not match the file`,
        { hint: "read the file and rebuild the hunk from its current text" },
      );
    lines = [...lines.slice(0, at), ...after, ...lines.slice(at + before.length)];
    cursor = at + after.length;
  }
  return lines.join("\n");
}

function findLines(lines: string[], needle: string[], from: number): number {
  if (needle.length === 0) return lines.length;
  for (let i = from; i + needle.length <= lines.length; i++) {
    if (needle.every((line, j) => lines[i + j] === line)) return i;
  }
  return from > 0 ? findLines(lines, needle, 0) : -1;
}

interface PlannedWrite {
  path: string;
  /** New content, or null to delete. */
  content: string | null;
  /** Content before the patch, or null when the file did not exist. */
  previous: string | null;
}

/** Every op checked and every new content computed; nothing touched yet. */
function planWrites(ops: FileOp[], ctx: ToolContext): PlannedWrite[] {
  const limits = ctx.fileLimits ?? DEFAULT_FILE_LIMITS;
  const planned = new Map<string, PlannedWrite>();
  for (const op of ops) {
    const path = resolveToolPath(ctx, op.path, "write");
    if (planned.has(path))
      throw bad(`${op.path} appears twice; put all its changes under one file header`);
    const exists = existsSync(path);
    if (op.kind === "add") {
      if (exists)
        throw new ClawboxError("TOOL_FAILED", `apply_patch: ${op.path} already exists`, {
          hint: "use Update File",
        });
      const content = op.lines.join("\n");
      checkWriteSize(path, Buffer.byteLength(content), limits, `apply_patch: ${op.path}`);
      planned.set(path, { path, content, previous: null });
      continue;
    }
    if (!exists)
      throw new ClawboxError("TOOL_FAILED", `apply_patch: ${op.path}: no such file`, {
        ...(op.kind === "update" ? { hint: "use Add File" } : {}),
      });
    checkEditableSize(statSync(path).size, limits, `apply_patch: ${op.path}`);
    const previous = readFileSync(path, "utf8");
    const content = op.kind === "delete" ? null : applyHunks(previous, op.hunks, op.path);
    if (content !== null)
      checkWriteSize(path, Buffer.byteLength(content), limits, `apply_patch: ${op.path}`);
    planned.set(path, { path, previous, content });
  }
  return [...planned.values()];
}

function writeOne(path: string, content: string | null): void {
  if (content === null) removeFileDurable(path);
  else writeFileAtomic(path, content);
}

/** Writes every planned file; on a failure, restores the ones already written. */
function applyAll(writes: PlannedWrite[]): void {
  const done: PlannedWrite[] = [];
  for (const write of writes) {
    try {
      writeOne(write.path, write.content);
      done.push(write);
    } catch (error) {
      for (const undo of done.reverse()) {
        try {
          writeOne(undo.path, undo.previous);
        } catch {
          // best effort: the error below names the failed file
        }
      }
      throw new ClawboxError(
        "TOOL_FAILED",
        `apply_patch: writing ${write.path} failed (${errorMessage(error)}); no file was changed`,
      );
    }
  }
}

export const applyPatchTool: AgentTool = {
  name: "apply_patch",
  group: "fs",
  description:
    'Apply a multi-file patch in the "*** Begin Patch" format: "*** Add File: p" (+lines), "*** Delete File: p", "*** Update File: p" with @@ hunks of " ", "-", "+" lines; end with "*** End Patch".',
  parameters: {
    type: "object",
    properties: { patch: { type: "string", minLength: 1 } },
    required: ["patch"],
    additionalProperties: false,
  },
  async execute(args, ctx) {
    try {
      const ops = parsePatch(String(args.patch));
      const writes = planWrites(ops, ctx);
      applyAll(writes);
      return textOutput(
        ops.map((op) => `${op.kind} ${op.path}`).join("\n") || "empty patch: nothing changed",
      );
    } catch (error) {
      return errorOutput(error);
    }
  },
};
