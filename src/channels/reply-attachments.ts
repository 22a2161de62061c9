/**
 * Workspace files a reply may attach (`<qqimg>memory/photo.png</qqimg>` becomes an upload
 * to the chat), judged for the sender of that turn by the same owner-file rules as the
 * file tools (tools/owner-files.ts): a stranger's reply never carries private memory,
 * the camera's pictures (media/), skills or a hard-linked file, whatever the model was
 * talked into writing. A refused image is replaced by a short note, so the reply still
 * goes out. So is anything the channel could not send after all: another URL scheme
 * (`file:///…`, `data:`), a file that is not there or not a regular file, or one outside
 * the workspace (the owner may `read` the bundled skills, but a reply attaches only
 * workspace files), so no image is dropped later without a word. http(s) URLs are left
 * to the adapter (the platform fetches them, not the box).
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { type FileRequester, resolveToolPath } from "../tools/index.ts";

const isUrl = (source: string) => /^https?:\/\//i.test(source);
/** `file://`, `ftp://`…: a URL the channels do not fetch (a `data:` URI names no file either). */
const isOtherUrl = (source: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(source);

/** Whether the requester may attach this local image source and the channel can send it. */
function mayAttach(requester: FileRequester, source: string): boolean {
  if (isOtherUrl(source)) return false;
  let path: string;
  try {
    path = realpathSync(resolveToolPath(requester, source, "read"));
  } catch {
    return false;
  }
  const rel = relative(realpathSync(resolve(requester.workspace)), path);
  if (rel === "" || rel === ".." || rel.startsWith("../") || isAbsolute(rel)) return false;
  return statSync(path).isFile();
}

/** The source of a reply item that is exactly one `<tag>…</tag>`, else undefined. */
export function imageSourceOf(item: string, tag: string): string | undefined {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const text = item.trim();
  if (!text.startsWith(open) || !text.endsWith(close)) return undefined;
  const source = text.slice(open.length, text.length - close.length).trim();
  return source && !source.includes(open) ? source : undefined;
}

/** `parts` with every local image the requester may not read replaced by a note. */
export function guardReplyAttachments(
  parts: string[],
  tag: string | undefined,
  requester: FileRequester,
): { parts: string[]; refused: string[] } {
  if (!tag) return { parts, refused: [] };
  const refused: string[] = [];
  const checked = parts.map((part) => {
    const source = imageSourceOf(part, tag);
    if (source === undefined || isUrl(source) || mayAttach(requester, source)) return part;
    refused.push(source);
    return "(an image was left out: that file is not shared in this chat)";
  });
  return { parts: checked, refused };
}
