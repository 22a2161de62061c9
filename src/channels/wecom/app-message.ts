/**
 * The decrypted XML of a self-built app callback (document 90239), validated. Text,
 * image and voice are user messages; `event` (enter_agent, subscribe, …) is logged
 * and never answered; other types are acknowledged and ignored.
 */
import { z } from "../../schema/index.ts";

export const appMessageFields = z.looseObject({
  ToUserName: z.optional(z.string()),
  FromUserName: z.string().check(z.minLength(1)),
  CreateTime: z.coerce.number().check(z.int(), z.nonnegative()),
  MsgType: z.string().check(z.minLength(1)),
  MsgId: z.optional(z.string()),
  Content: z.optional(z.string()),
  PicUrl: z.optional(z.string()),
  MediaId: z.optional(z.string()),
  Format: z.optional(z.string()),
  Recognition: z.optional(z.string()),
  Event: z.optional(z.string()),
  AgentID: z.optional(z.string()),
});
export type AppMessageFields = z.infer<typeof appMessageFields>;

export type AppMessage =
  | {
      kind: "message";
      msgId: string;
      fromUser: string;
      sentAt: number;
      text: string;
      image?: { mediaId?: string; picUrl?: string };
      voice?: { mediaId?: string; transcript?: string };
    }
  | { kind: "event"; fromUser: string; event: string }
  | { kind: "unsupported"; fromUser: string; msgType: string };

/** Classifies validated callback fields. */
export function toAppMessage(fields: AppMessageFields): AppMessage {
  const fromUser = fields.FromUserName;
  if (fields.MsgType === "event") {
    return { kind: "event", fromUser, event: fields.Event ?? "unknown" };
  }
  if (!["text", "image", "voice"].includes(fields.MsgType)) {
    return { kind: "unsupported", fromUser, msgType: fields.MsgType };
  }
  const base = {
    kind: "message" as const,
    // Every user message carries MsgId; the fallback only keeps a malformed one dedupable.
    msgId: fields.MsgId ?? `${fromUser}:${fields.CreateTime}`,
    fromUser,
    sentAt: fields.CreateTime * 1000,
  };
  if (fields.MsgType === "image") {
    return {
      ...base,
      text: "",
      image: {
        ...(fields.MediaId ? { mediaId: fields.MediaId } : {}),
        ...(fields.PicUrl ? { picUrl: fields.PicUrl } : {}),
      },
    };
  }
  if (fields.MsgType === "voice") {
    return {
      ...base,
      text: "",
      voice: {
        ...(fields.MediaId ? { mediaId: fields.MediaId } : {}),
        ...(fields.Recognition ? { transcript: fields.Recognition } : {}),
      },
    };
  }
  return { ...base, text: fields.Content ?? "" };
}
