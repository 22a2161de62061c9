/**
 * Where an image the assistant sends (`<qqimg>PATH_OR_URL</qqimg>`) comes from: an
 * http(s) URL is passed to QQ's rich-media upload as is (QQ fetches it); a local path
 * must be a real image file inside the workspace, at most 10 MB, sent as base64. A path
 * outside the workspace is refused, so a reply can never upload the box's other files.
 * Each refusal is a ClawboxError whose code says it will not change on a retry
 * (`WORKSPACE_ESCAPE`, `NOT_FOUND`, `MEDIA_INVALID`: see `isPermanentImageFailure`).
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { ClawboxError, type ErrorCode, isClawboxError } from "../../errors/index.ts";
import { sniffImageType } from "../../media/index.ts";

const MAX_BYTES = 10 * 1024 * 1024;

export type QqImageSource = { url: string } | { file_data: string };

/** Codes of an image that no retry will fix: the send fails at once. */
const PERMANENT: ErrorCode[] = ["WORKSPACE_ESCAPE", "NOT_FOUND", "MEDIA_INVALID"];

export function isPermanentImageFailure(error: unknown): boolean {
  return isClawboxError(error, ...PERMANENT);
}

function realPath(path: string, value: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR")
      throw new ClawboxError("NOT_FOUND", `image ${value}: no such file in the workspace`, {
        cause: error,
      });
    throw error;
  }
}

export function qqImageSource(pathOrUrl: string, workspace: string): QqImageSource {
  const value = pathOrUrl.trim();
  if (/^https?:\/\//i.test(value)) return { url: value };
  const root = realpathSync(workspace);
  const full = realPath(resolve(root, value), value);
  const rel = relative(root, full);
  if (rel.startsWith("..") || isAbsolute(rel))
    throw new ClawboxError(
      "WORKSPACE_ESCAPE",
      `image path outside the workspace refused: ${value}`,
    );
  const size = statSync(full).size;
  if (size > MAX_BYTES) throw new ClawboxError("MEDIA_INVALID", `image ${value} is over 10 MB`);
  const bytes = readFileSync(full);
  if (!sniffImageType(bytes)) throw new ClawboxError("MEDIA_INVALID", `${value} is not an image`);
  return { file_data: bytes.toString("base64") };
}
