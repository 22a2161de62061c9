/**
 * Reply shaping per channel capabilities. The agent's cleaned reply (thinking tags and
 * NO_REPLY already removed) becomes the platform messages to send: markdown kept or
 * flattened to plain text, one message whenever it fits, otherwise split only at
 * paragraph boundaries (then lines, then characters as a last resort), and never more
 * messages than the platform accepts for one inbound message.
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

function splitLong(block: string, max: number, joiner: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const piece of block.split(joiner)) {
    const candidate = current ? `${current}${joiner}${piece}` : piece;
    if (candidate.length <= max) {
      current = candidate;
      continue;
    }
    if (current) out.push(current);
    if (piece.length <= max) {
      current = piece;
      continue;
    }
    if (joiner === "\n\n") {
      out.push(...splitLong(piece, max, "\n"));
      current = "";
    } else {
      for (let i = 0; i < piece.length; i += max) out.push(piece.slice(i, i + max));
      current = "";
    }
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
  const max = capabilities.maxLength;
  if (body.length <= max) return [body];
  const parts = splitLong(body, max, "\n\n");
  if (parts.length <= limit) return parts;
  const kept = parts.slice(0, limit);
  const last = kept[limit - 1] ?? "";
  kept[limit - 1] =
    last.length + CUT_NOTE.length + 1 <= max
      ? `${last}\n${CUT_NOTE}`
      : `${last.slice(0, max - CUT_NOTE.length - 1)}\n${CUT_NOTE}`;
  return kept;
}
