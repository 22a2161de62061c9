/**
 * The decrypted XML of a self-built app callback (document 90239), validated. Text,
 * image and voice are user messages; `event` (enter_agent, subscribe, …) is logged
 * and never answered; other types are acknowledged and ignored.
 */
import * as z from "zod";

export const appMessageFields = z.looseObject({
  ToUserName: z.string().optional(),
  FromUserName: z.string().min(1),
  CreateTime: z.coerce.number().int().nonnegative(),
  MsgType: z.string().min(1),
  MsgId: z.string().optional(),
  Content: z.string().optional(),
  PicUrl: z.string().optional(),
  MediaId: z.string().optional(),
  Format: z.string().optional(),
  Recognition: z.string().optional(),
  Event: z.string().optional(),
  AgentID: z.string().optional(),
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
