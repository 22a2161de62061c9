/**
 * What a file tool may write (`tools.files`, docs/TOOLS.md): no file larger than
 * `maxFileBytes` (a stranger granted file tools once grew a file without end with
 * `write` + `edit replaceAll`), and nothing that would leave less than
 * `minFreeDiskBytes` free on the workspace's disk (the database, the logs and the
 * owner's own writes need that room). Checked before anything is written; the error
 * says which limit and how to change it.
 */
import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import type { FileLimits } from "../config/index.ts";
import { ClawboxError } from "../errors/index.ts";

export type { FileLimits };

export const DEFAULT_FILE_LIMITS: FileLimits = {
  maxFileBytes: 1024 * 1024,
  minFreeDiskBytes: 256 * 1024 * 1024,
};

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MB`;

/** Free bytes for an unprivileged writer on the disk holding `path` (its nearest existing folder). */
function freeBytes(path: string): number | undefined {
  let dir = dirname(path);
  for (;;) {
    try {
      const stat = statfsSync(dir);
      return Number(stat.bavail) * Number(stat.bsize);
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return undefined;
      dir = parent;
    }
  }
}

/** Throws TOOL_FAILED when `bytes` may not be written to `path`. */
export function checkWriteSize(
  path: string,
  bytes: number,
  limits: FileLimits,
  where: string,
): void {
  if (bytes > limits.maxFileBytes) {
    throw new ClawboxError(
      "TOOL_FAILED",
      `${where}: ${mb(bytes)} is over the ${mb(limits.maxFileBytes)} limit for one file`,
      { hint: "write a smaller file (split it), or raise tools.files.maxFileBytes" },
    );
  }
  const free = freeBytes(path);
  if (free !== undefined && free - bytes < limits.minFreeDiskBytes) {
    throw new ClawboxError(
      "TOOL_FAILED",
      `${where}: the disk would have less than ${mb(limits.minFreeDiskBytes)} free (${mb(free)} now)`,
      { hint: "free some space, or lower tools.files.minFreeDiskBytes" },
    );
  }
}

/** Throws TOOL_FAILED when an existing file is too large to be edited in memory. */
export function checkEditableSize(size: number, limits: FileLimits, where: string): void {
  if (size > limits.maxFileBytes) {
    throw new ClawboxError(
      "TOOL_FAILED",
      `${where}: the file is ${mb(size)}, over the ${mb(limits.maxFileBytes)} limit for one file`,
      { hint: "the file tools only change files up to tools.files.maxFileBytes" },
    );
  }
}
