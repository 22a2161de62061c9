/**
 * Reply shaping per channel capabilities. The agent's cleaned reply (thinking tags and
 * NO_REPLY already removed) becomes the platform messages to send: markdown kept or
 * flattened to plain text, one message whenever it fits, otherwise split only at
 * paragraph boundaries (then lines, then characters as a last resort), and never more
 * messages than the platform accepts for one inbound message. Limits are characters,
 * plus UTF-8 bytes for platforms that count bytes (WeCom): a CJK character is 3 bytes.
 */
import type { ChannelCapabilities } from "./channel.ts";

export const CUT_NOTE = "… (reply cut: too long for this chat)";

/** Markdown syntax removed, text kept: for platforms that show raw characters. */
export function markdownToPlain(text: string): string {
  return text
    .replace(/```[a-zA-Z0-9_-]*\n?([\s\S]*?)```/g, "$1")
    .replace(/`([^`\n]+)`/g, "$1")
    .replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, "$1 $2")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, "$1 ($2)")
    .replace(/^#{1,6}\s+/gm, "")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[^*\w])\*([^*\n]+)\*(?!\w)/g, "$1$2")
    .replace(/^\s*[-*+]\s+/gm, "• ")
    .replace(/^>\s?/gm, "");
}

/** A message size limit: characters, and UTF-8 bytes where the platform counts bytes. */
interface SizeLimit {
  chars: number;
  bytes?: number | undefined;
}

function fits(text: string, limit: SizeLimit): boolean {
  return (
    text.length <= limit.chars &&
    (limit.bytes === undefined || Buffer.byteLength(text, "utf8") <= limit.bytes)
  );
}

/** The longest prefix of `text` that fits, never cutting a character in two. */
function fittingPrefix(text: string, limit: SizeLimit): string {
  let end = 0;
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, "utf8");
    if (end + char.length > limit.chars) break;
    if (limit.bytes !== undefined && bytes + size > limit.bytes) break;
    end += char.length;
    bytes += size;
  }
  return text.slice(0, end);
}

function splitLong(block: string, limit: SizeLimit, joiner: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const piece of block.split(joiner)) {
    const candidate = current ? `${current}${joiner}${piece}` : piece;
    if (fits(candidate, limit)) {
      current = candidate;
      continue;
    }
    if (current) out.push(current);
    if (fits(piece, limit)) {
      current = piece;
      continue;
    }
    if (joiner === "\n\n") {
      out.push(...splitLong(piece, limit, "\n"));
    } else {
      let rest = piece;
      while (rest) {
        const head = fittingPrefix(rest, limit) || [...rest][0] || "";
        out.push(head);
        rest = rest.slice(head.length);
      }
    }
    current = "";
  }
  if (current) out.push(current);
  return out;
}

/** Image tags cut out of the text (each becomes its own item), and the text left. */
function takeImages(text: string, tag: string | undefined): { text: string; images: string[] } {
  if (!tag) return { text, images: [] };
  const images: string[] = [];
  const pattern = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g");
  const rest = text.replace(pattern, (_match, source: string) => {
    if (source.trim()) images.push(`<${tag}>${source.trim()}</${tag}>`);
    return "";
  });
  return { text: rest.replace(/\n{3,}/g, "\n\n"), images };
}

/**
 * The messages to send for one reply, at most `maxRepliesPerMessage`: the text first,
 * then one item per image tag (images keep their slots; the text gets the rest).
 */
export function shapeReply(text: string, capabilities: ChannelCapabilities): string[] {
  const limit = Math.max(1, capabilities.maxRepliesPerMessage);
  const taken = takeImages(text, capabilities.images ? capabilities.imageTag : undefined);
  const images = taken.images.slice(0, limit - 1);
  const textParts = shapeText(taken.text, capabilities, limit - images.length);
  return [...textParts, ...(textParts.length > 0 ? images : taken.images.slice(0, limit))];
}

function shapeText(text: string, capabilities: ChannelCapabilities, limit: number): string[] {
  const body = (capabilities.markdown ? text : markdownToPlain(text)).trim();
  if (body === "") return [];
  const size = { chars: capabilities.maxLength, bytes: capabilities.maxBytes };
  if (fits(body, size)) return [body];
  const parts = splitLong(body, size, "\n\n");
  if (parts.length <= limit) return parts;
  const kept = parts.slice(0, limit);
  const last = kept[limit - 1] ?? "";
  const noted = `${last}\n${CUT_NOTE}`;
  kept[limit - 1] = fits(noted, size)
    ? noted
    : `${fittingPrefix(last, {
        chars: size.chars - CUT_NOTE.length - 1,
        ...(size.bytes ? { bytes: size.bytes - Buffer.byteLength(CUT_NOTE) - 1 } : {}),
      })}\n${CUT_NOTE}`;
  return kept;
}
