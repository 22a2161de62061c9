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

export const channelsSection = z
  .object({
    qq: qqChannelSection.optional(),
  })
  .default({});

export type ChannelsConfig = z.infer<typeof channelsSection>;
