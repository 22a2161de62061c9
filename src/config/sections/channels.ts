/**
 * Messaging channels (SPEC §9). One key per channel; each channel's keys are a contract
 * with the owner's config file (issue 11 for QQ), so names never change once shipped.
 */
import * as z from "zod";

const DEFAULT_QQ_API_BASE = "https://api.sgroup.qq.com";
const DEFAULT_QQ_TOKEN_URL = "https://bots.qq.com/app/getAppAccessToken";

/** The QQ official bot (bots.qq.com). Only the credentials are required. */
export const qqChannelSection = z.object({
  /** Default true: writing the section with credentials turns the channel on. */
  enabled: z.boolean().default(true),
  appId: z.string().min(1),
  clientSecret: z.string().min(1),
  /** "websocket" (default): the box connects out; "webhook": the platform POSTs to /channels/qq/webhook. */
  mode: z.enum(["websocket", "webhook"]).default("websocket"),
  apiBase: z.string().url().default(DEFAULT_QQ_API_BASE),
  tokenUrl: z.string().url().default(DEFAULT_QQ_TOKEN_URL),
  /** Send replies as markdown (msg_type 2); needs the markdown permission on the QQ open platform. */
  markdown: z.boolean().default(false),
  /** User openids (or "group:<group_openid>") allowed to talk to the bot; empty = anyone. */
  allowFrom: z.array(z.string().min(1)).default([]),
  /** "mention" (default): answer group messages that @-mention the bot; "disabled": ignore groups. */
  groupPolicy: z.enum(["mention", "disabled"]).default("mention"),
});

export type QqChannelConfig = z.infer<typeof qqChannelSection>;

const DEFAULT_WECOM_API_BASE = "https://qyapi.weixin.qq.com";
const DEFAULT_WECOM_WS_URL = "wss://openws.work.weixin.qq.com";

/** WeCom self-built application (issue 12): the platform calls GET|POST /channels/wecom/app. */
export const wecomAppSection = z.object({
  enabled: z.boolean().default(true),
  corpId: z.string().min(1),
  corpSecret: z.string().min(1),
  agentId: z.coerce.number().int().nonnegative(),
  /** The callback Token from the app's "API receive" settings. */
  token: z.string().min(1),
  /** The 43-character EncodingAESKey from the same settings. */
  encodingAESKey: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}$/, "must be the 43-character EncodingAESKey"),
  apiBase: z.string().url().default(DEFAULT_WECOM_API_BASE),
  /** Send replies as markdown (else plain text). */
  markdown: z.boolean().default(false),
  /** WeCom userids (or "wecom:<userid>") allowed to talk to the app; empty = anyone who can see it. */
  allowFrom: z.array(z.string().min(1)).default([]),
});

/** WeCom intelligent bot over the long connection (no public URL needed). */
export const wecomBotSection = z.object({
  enabled: z.boolean().default(true),
  botId: z.string().min(1),
  secret: z.string().min(1),
  wsUrl: z.string().url().default(DEFAULT_WECOM_WS_URL),
  /** userids, "wecom:<userid>" or "group:<chatid>"; empty = anyone. */
  allowFrom: z.array(z.string().min(1)).default([]),
  /** "mention" (default): answer group chats (the platform only forwards @-mentions); "disabled": ignore groups. */
  groupPolicy: z.enum(["mention", "disabled"]).default("mention"),
  /** Heartbeat interval of the long connection. */
  pingIntervalMs: z.number().int().min(50).default(30_000),
});

export type WecomAppConfig = z.infer<typeof wecomAppSection>;
export type WecomBotConfig = z.infer<typeof wecomBotSection>;

export const channelsSection = z
  .object({
    qq: qqChannelSection.optional(),
    wecom: z
      .object({ app: wecomAppSection.optional(), bot: wecomBotSection.optional() })
      .optional(),
  })
  .default({});

export type ChannelsConfig = z.infer<typeof channelsSection>;
