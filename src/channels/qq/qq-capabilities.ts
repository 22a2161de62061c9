/**
 * What QQ allows a reply (docs/CHANNELS.md): length, replies per message, reply windows,
 * the platform's dedupe of (msg_id, msg_seq), images by `<qqimg>`. A leaf, so the
 * registry entry and the lazily loaded adapter both read it without importing each other.
 */
import type { ChannelCapabilities } from "../channel.ts";

/** Longest text we put in one QQ message (decision recorded in docs/CHANNELS.md). */
export const QQ_MAX_LENGTH = 2000;

export function qqCapabilities(markdown: boolean): ChannelCapabilities {
  return {
    markdown,
    maxLength: QQ_MAX_LENGTH,
    maxRepliesPerMessage: 5,
    replyWindowMs: { direct: 60 * 60_000, group: 5 * 60_000 },
    idempotentReplies: true,
    images: true,
    imageTag: "qqimg",
  };
}
