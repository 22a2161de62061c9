/**
 * Messaging channels (SPEC §9). One key per channel; each channel's keys are a contract
 * with the owner's config file (issue 11 for QQ), so names never change once shipped.
 */
import { z } from "../../schema/index.ts";

const DEFAULT_QQ_API_BASE = "https://api.sgroup.qq.com";
const DEFAULT_QQ_TOKEN_URL = "https://bots.qq.com/app/getAppAccessToken";

const nonEmpty = z.string().check(z.minLength(1));
/** Default true: writing the section with credentials turns the channel on. */
const enabledByDefault = z._default(z.boolean(), true);
const markdownOff = z._default(z.boolean(), false);
const allowFrom = z._default(z.array(nonEmpty), []);
const groupPolicy = z._default(z.enum(["mention", "disabled"]), "mention");
/**
 * Who may chat directly (owners always may): "open" anyone; "allowlist" only senders in
 * `allowFrom`; "pairing" as allowlist, and anyone else gets a pairing code instead of an
 * answer. Unset: "allowlist" when `allowFrom` lists anyone, else "open".
 */
const dmPolicy = z.optional(z.enum(["open", "allowlist", "pairing"]));

/** The QQ official bot (bots.qq.com). Only the credentials are required. */
export const qqChannelSection = z.object({
  enabled: enabledByDefault,
  appId: nonEmpty,
  clientSecret: nonEmpty,
  /** "websocket" (default): the box connects out; "webhook": the platform POSTs to /channels/qq/webhook. */
  mode: z._default(z.enum(["websocket", "webhook"]), "websocket"),
  apiBase: z._default(z.url(), DEFAULT_QQ_API_BASE),
  tokenUrl: z._default(z.url(), DEFAULT_QQ_TOKEN_URL),
  /** Send replies as markdown (msg_type 2); needs the markdown permission on the QQ open platform. */
  markdown: markdownOff,
  /** User openids (or "group:<group_openid>") allowed to talk to the bot; empty = anyone. */
  allowFrom,
  /** "mention" (default): answer group messages that @-mention the bot; "disabled": ignore groups. */
  groupPolicy,
  dmPolicy,
});

export type QqChannelConfig = z.infer<typeof qqChannelSection>;

const DEFAULT_WECOM_API_BASE = "https://qyapi.weixin.qq.com";
const DEFAULT_WECOM_WS_URL = "wss://openws.work.weixin.qq.com";

/** WeCom self-built application (issue 12): the platform calls GET|POST /channels/wecom/app. */
export const wecomAppSection = z.object({
  enabled: enabledByDefault,
  corpId: nonEmpty,
  corpSecret: nonEmpty,
  agentId: z.coerce.number().check(z.int(), z.nonnegative()),
  /** The callback Token from the app's "API receive" settings. */
  token: nonEmpty,
  /** The 43-character EncodingAESKey from the same settings. */
  encodingAESKey: z
    .string()
    .check(z.regex(/^[A-Za-z0-9+/]{43}$/, "must be the 43-character EncodingAESKey")),
  apiBase: z._default(z.url(), DEFAULT_WECOM_API_BASE),
  /** Send replies as markdown (else plain text). */
  markdown: markdownOff,
  /** WeCom userids (or "wecom:<userid>") allowed to talk to the app; empty = anyone who can see it. */
  allowFrom,
  dmPolicy,
});

/** WeCom intelligent bot over the long connection (no public URL needed). */
export const wecomBotSection = z.object({
  enabled: enabledByDefault,
  botId: nonEmpty,
  secret: nonEmpty,
  wsUrl: z._default(z.url(), DEFAULT_WECOM_WS_URL),
  /** userids, "wecom:<userid>" or "group:<chatid>"; empty = anyone. */
  allowFrom,
  /** "mention" (default): answer group chats (the platform only forwards @-mentions); "disabled": ignore groups. */
  groupPolicy,
  dmPolicy,
  /** Heartbeat interval of the long connection. */
  pingIntervalMs: z._default(z.number().check(z.int(), z.minimum(50)), 30_000),
});

export type WecomAppConfig = z.infer<typeof wecomAppSection>;
export type WecomBotConfig = z.infer<typeof wecomBotSection>;

export const channelsSection = z._default(
  z.object({
    qq: z.optional(qqChannelSection),
    wecom: z.optional(
      z.object({ app: z.optional(wecomAppSection), bot: z.optional(wecomBotSection) }),
    ),
  }),
  {},
);

export type ChannelsConfig = z.infer<typeof channelsSection>;
