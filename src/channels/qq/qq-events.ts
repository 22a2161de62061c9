/**
 * QQ frames and the two message events the bot answers (intent GROUP_AND_C2C_EVENT,
 * 1<<25): `C2C_MESSAGE_CREATE` (a user's direct message) and `GROUP_AT_MESSAGE_CREATE`
 * (a group message that @-mentions the bot). Validated with zod; anything else is
 * reported as not a message, never thrown.
 */
import { z } from "../../schema/index.ts";
import type { InboundAttachment, InboundMessage } from "../channel.ts";

export const frameSchema = z.object({
  id: z.optional(z.string()),
  op: z.number().check(z.int()),
  d: z.optional(z.unknown()),
  s: z.optional(z.nullable(z.number().check(z.int()))),
  t: z.optional(z.nullable(z.string())),
});

export type QqFrame = z.infer<typeof frameSchema>;

const attachmentSchema = z.object({
  content_type: z._default(z.string(), ""),
  filename: z.optional(z.string()),
  url: z.optional(z.string()),
  size: z.optional(z.union([z.number(), z.string()])),
  asr_refer_text: z.optional(z.string()),
});

const baseMessage = {
  id: z.string().check(z.minLength(1)),
  content: z._default(z.string(), ""),
  timestamp: z.optional(z.union([z.string(), z.number()])),
  attachments: z._default(z.array(attachmentSchema), []),
};

const c2cMessage = z.object({
  ...baseMessage,
  author: z.object({ user_openid: z.string().check(z.minLength(1)) }),
});

const groupMessage = z.object({
  ...baseMessage,
  group_openid: z.string().check(z.minLength(1)),
  author: z.object({ member_openid: z.string().check(z.minLength(1)) }),
});

function absoluteUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  if (url.startsWith("//")) return `https:${url}`;
  return /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `https://${url}`;
}

function attachmentOf(a: z.infer<typeof attachmentSchema>): InboundAttachment {
  const type = a.content_type.toLowerCase();
  const kind: InboundAttachment["kind"] =
    type === "voice" || type.startsWith("audio/")
      ? "voice"
      : type.startsWith("image/") || type === "image"
        ? "image"
        : type.startsWith("video/") || type === "video"
          ? "video"
          : "file";
  const url = absoluteUrl(a.url);
  const size = a.size === undefined ? undefined : Number(a.size);
  return {
    kind,
    ...(url ? { url } : {}),
    ...(a.filename ? { name: a.filename } : {}),
    ...(a.content_type ? { contentType: a.content_type } : {}),
    ...(size !== undefined && Number.isFinite(size) ? { size } : {}),
    ...(a.asr_refer_text ? { transcript: a.asr_refer_text } : {}),
  };
}

function timeOf(timestamp: string | number | undefined, fallback: number): number {
  if (timestamp === undefined) return fallback;
  const ms = typeof timestamp === "number" ? timestamp * 1000 : Date.parse(timestamp);
  return Number.isFinite(ms) ? ms : fallback;
}

/**
 * The message carried by a dispatch (`t`, `d`), or undefined for other events.
 * Throws a zod error when a message event is malformed (the caller logs and skips it).
 */
export function messageOfEvent(
  type: string | null | undefined,
  data: unknown,
  now = Date.now(),
): InboundMessage | undefined {
  const common = (d: z.infer<typeof c2cMessage> | z.infer<typeof groupMessage>) => ({
    channel: "qq",
    messageId: d.id,
    text: d.content.trim(),
    mentioned: true,
    sentAt: Math.min(now, timeOf(d.timestamp, now)),
    attachments: d.attachments.map(attachmentOf),
  });
  if (type === "C2C_MESSAGE_CREATE") {
    const d = c2cMessage.parse(data);
    return { ...common(d), chatType: "direct", senderId: d.author.user_openid };
  }
  if (type === "GROUP_AT_MESSAGE_CREATE") {
    const d = groupMessage.parse(data);
    return {
      ...common(d),
      chatType: "group",
      senderId: d.author.member_openid,
      groupId: d.group_openid,
    };
  }
  return undefined;
}
