/**
 * WeCom's two entries in the channel registry, with the platform's limits:
 * - the self-built app (`channels.wecom.app`, channel id "wecom-app"): message/send
 *   takes at most 2048 bytes of text or markdown per message (document 90236) and has
 *   no reply window of its own; a send asks for the platform's duplicate check
 *   (`enable_duplicate_check`, 30 minutes) unless the same text went to the same person
 *   inside that window, so a send cut by a crash is repeated after the restart and still
 *   shows once;
 * - the intelligent bot (`channels.wecom.bot`, channel id "wecom-bot"): a stream frame
 *   holds at most 20480 bytes of markdown (document 101463); parts beyond the first go
 *   out as `aibot_send_msg`.
 * Both answer a message up to an hour after it was sent (a restart after a crash still
 * answers). Senders reach the agent as `wecom:<userid>` from either channel (the
 * sessions area's channel identities say so, for access, owners and reminders alike).
 */
import type { ChannelCapabilities } from "../channel.ts";
import type { ChannelDefinition } from "../channel-definition.ts";
import { WECOM_APP_CHANNEL, WECOM_BOT_CHANNEL } from "./wecom-channel-ids.ts";

/** message/send's `duplicate_check_interval` (the platform's default; at most 4 hours). */
export const WECOM_DUPLICATE_CHECK_SECONDS = 1800;

const HOUR_MS = 60 * 60_000;

export function wecomAppCapabilities(markdown: boolean): ChannelCapabilities {
  return {
    markdown,
    maxLength: 2048,
    maxBytes: 2048,
    maxRepliesPerMessage: 5,
    replyWindowMs: { direct: HOUR_MS, group: HOUR_MS },
    idempotentReplies: false,
    duplicateCheckSeconds: WECOM_DUPLICATE_CHECK_SECONDS,
    images: false,
  };
}

export function wecomBotCapabilities(): ChannelCapabilities {
  return {
    markdown: true,
    maxLength: 20480,
    maxBytes: 20480,
    maxRepliesPerMessage: 5,
    replyWindowMs: { direct: HOUR_MS, group: HOUR_MS },
    idempotentReplies: false,
    images: false,
  };
}

export const wecomAppDefinition: ChannelDefinition = {
  id: WECOM_APP_CHANNEL,
  settings(channels) {
    const app = channels.wecom?.app;
    if (!app?.enabled) return undefined;
    return {
      capabilities: wecomAppCapabilities(app.markdown),
      access: {
        allowFrom: app.allowFrom,
        groupPolicy: "disabled",
        dmPolicy: app.dmPolicy,
      },
    };
  },
  section: (channels) => channels.wecom?.app,
  disabledReason(channels) {
    return channels.wecom?.app
      ? "channels.wecom.app.enabled is false"
      : "channels.wecom.app is not configured";
  },
  async load(deps) {
    const { createWeComAppChannel } = await import("./app-channel.ts");
    const app = deps.channels.wecom?.app;
    return createWeComAppChannel(deps, wecomAppCapabilities(app?.markdown ?? false));
  },
};

export const wecomBotDefinition: ChannelDefinition = {
  id: WECOM_BOT_CHANNEL,
  settings(channels) {
    const bot = channels.wecom?.bot;
    if (!bot?.enabled) return undefined;
    return {
      capabilities: wecomBotCapabilities(),
      access: {
        allowFrom: bot.allowFrom,
        groupPolicy: bot.groupPolicy,
        dmPolicy: bot.dmPolicy,
      },
    };
  },
  section: (channels) => channels.wecom?.bot,
  disabledReason(channels) {
    return channels.wecom?.bot
      ? "channels.wecom.bot.enabled is false"
      : "channels.wecom.bot is not configured";
  },
  async load(deps) {
    const { createWeComBotChannel } = await import("./bot-channel.ts");
    return createWeComBotChannel(deps, wecomBotCapabilities());
  },
};
