/**
 * Frames of the intelligent bot's long connection (developer.work.weixin.qq.com
 * document 101463): JSON `{cmd?, headers: {req_id}, body?, errcode?, errmsg?}`.
 * Frames from the platform are validated here; anything unexpected is logged and
 * dropped by the connection, never thrown into the event loop.
 */
import { z } from "../../schema/index.ts";

export const BOT_CMD = {
  subscribe: "aibot_subscribe",
  ping: "ping",
  respond: "aibot_respond_msg",
  send: "aibot_send_msg",
  msgCallback: "aibot_msg_callback",
  eventCallback: "aibot_event_callback",
} as const;

const mediaRef = z.looseObject({
  url: z.string().check(z.minLength(1)),
  aeskey: z.optional(z.string()),
});
const textPart = z.looseObject({ content: z.string() });

const mixedItem = z.looseObject({
  msgtype: z.string(),
  text: z.optional(textPart),
  image: z.optional(mediaRef),
});

/** Body of `aibot_msg_callback`: one user message in a single or group chat. */
export const botMessageBody = z.looseObject({
  msgid: z.string().check(z.minLength(1)),
  aibotid: z.optional(z.string()),
  chatid: z.optional(z.string()),
  chattype: z.enum(["single", "group"]),
  from: z.looseObject({ userid: z.string().check(z.minLength(1)) }),
  create_time: z.optional(z.number()),
  msgtype: z.string(),
  text: z.optional(textPart),
  image: z.optional(mediaRef),
  voice: z.optional(textPart),
  mixed: z.optional(z.looseObject({ msg_item: z.array(mixedItem) })),
  file: z.optional(mediaRef),
});
export type BotMessageBody = z.infer<typeof botMessageBody>;

/** Body of `aibot_event_callback` (enter_chat, disconnected_event, …). */
export const botEventBody = z.looseObject({
  msgid: z.optional(z.string()),
  chatid: z.optional(z.string()),
  chattype: z.optional(z.enum(["single", "group"])),
  from: z.optional(z.looseObject({ userid: z.string() })),
  event: z.looseObject({ eventtype: z.string() }),
});
export type BotEventBody = z.infer<typeof botEventBody>;

/** Any frame from the platform, before dispatch on `cmd`. */
export const inboundFrame = z.looseObject({
  cmd: z.optional(z.string()),
  headers: z.looseObject({ req_id: z.string() }),
  body: z.optional(z.unknown()),
  errcode: z.optional(z.number()),
  errmsg: z.optional(z.string()),
});
export type InboundFrame = z.infer<typeof inboundFrame>;

export interface OutboundFrame {
  cmd: string;
  headers: { req_id: string };
  body?: Record<string, unknown>;
}
