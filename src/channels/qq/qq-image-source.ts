/**
 * Where an image the assistant sends (`<qqimg>PATH_OR_URL</qqimg>`) comes from: an
 * http(s) URL is passed to QQ's rich-media upload as is (QQ fetches it); a local path
 * must be a real image file inside the workspace, at most 10 MB, sent as base64. A path
 * outside the workspace is refused, so a reply can never upload the box's other files.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { sniffImageType } from "../../media/index.ts";

const MAX_BYTES = 10 * 1024 * 1024;

export type QqImageSource = { url: string } | { file_data: string };

export function qqImageSource(pathOrUrl: string, workspace: string): QqImageSource {
  const value = pathOrUrl.trim();
  if (/^https?:\/\//i.test(value)) return { url: value };
  const root = realpathSync(workspace);
  const full = realpathSync(resolve(root, value));
  const rel = relative(root, full);
  if (rel.startsWith("..") || isAbsolute(rel))
    throw new Error(`image path outside the workspace refused: ${value}`);
  const size = statSync(full).size;
  if (size > MAX_BYTES) throw new Error(`image ${value} is over 10 MB`);
  const bytes = readFileSync(full);
  if (!sniffImageType(bytes)) throw new Error(`${value} is not an image`);
  return { file_data: bytes.toString("base64") };
}
