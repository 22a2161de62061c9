/**
 * Frames of the intelligent bot's long connection (developer.work.weixin.qq.com
 * document 101463): JSON `{cmd?, headers: {req_id}, body?, errcode?, errmsg?}`.
 * Frames from the platform are validated here; anything unexpected is logged and
 * dropped by the connection, never thrown into the event loop.
 */
import * as z from "zod";

export const BOT_CMD = {
  subscribe: "aibot_subscribe",
  ping: "ping",
  respond: "aibot_respond_msg",
  send: "aibot_send_msg",
  msgCallback: "aibot_msg_callback",
  eventCallback: "aibot_event_callback",
} as const;

const mediaRef = z.looseObject({ url: z.string().min(1), aeskey: z.string().optional() });
const textPart = z.looseObject({ content: z.string() });

const mixedItem = z.looseObject({
  msgtype: z.string(),
  text: textPart.optional(),
  image: mediaRef.optional(),
});

/** Body of `aibot_msg_callback`: one user message in a single or group chat. */
export const botMessageBody = z.looseObject({
  msgid: z.string().min(1),
  aibotid: z.string().optional(),
  chatid: z.string().optional(),
  chattype: z.enum(["single", "group"]),
  from: z.looseObject({ userid: z.string().min(1) }),
  create_time: z.number().optional(),
  msgtype: z.string(),
  text: textPart.optional(),
  image: mediaRef.optional(),
  voice: textPart.optional(),
  mixed: z.looseObject({ msg_item: z.array(mixedItem) }).optional(),
  file: mediaRef.optional(),
});
export type BotMessageBody = z.infer<typeof botMessageBody>;

/** Body of `aibot_event_callback` (enter_chat, disconnected_event, …). */
export const botEventBody = z.looseObject({
  msgid: z.string().optional(),
  chatid: z.string().optional(),
  chattype: z.enum(["single", "group"]).optional(),
  from: z.looseObject({ userid: z.string() }).optional(),
  event: z.looseObject({ eventtype: z.string() }),
});
export type BotEventBody = z.infer<typeof botEventBody>;

/** Any frame from the platform, before dispatch on `cmd`. */
export const inboundFrame = z.looseObject({
  cmd: z.string().optional(),
  headers: z.looseObject({ req_id: z.string() }),
  body: z.unknown().optional(),
  errcode: z.number().optional(),
  errmsg: z.string().optional(),
});
export type InboundFrame = z.infer<typeof inboundFrame>;

export interface OutboundFrame {
  cmd: string;
  headers: { req_id: string };
  body?: Record<string, unknown>;
}
