/**
 * QQ's entry in the channel registry: capabilities and access from `channels.qq`,
 * and a lazy loader for the adapter. Limits from the QQ bot docs (send.html):
 * passive replies within 60 min (C2C) / 5 min (group) of the user's message, at most
 * 5 per message, each with a distinct msg_seq; (msg_id, msg_seq) is deduplicated by
 * the platform (error 40054005), which makes a resend after a crash harmless.
 */
import type { ChannelDefinition } from "../channel-definition.ts";
import { qqCapabilities } from "./qq-capabilities.ts";

export const qqDefinition: ChannelDefinition = {
  id: "qq",
  settings(channels) {
    const qq = channels.qq;
    if (!qq?.enabled) return undefined;
    return {
      capabilities: qqCapabilities(qq.markdown),
      access: { allowFrom: qq.allowFrom, groupPolicy: qq.groupPolicy, dmPolicy: qq.dmPolicy },
    };
  },
  section: (channels) => channels.qq,
  disabledReason(channels) {
    return channels.qq ? "channels.qq.enabled is false" : "channels.qq is not configured";
  },
  async load(deps) {
    const { createQqChannel } = await import("./qq-channel.ts");
    return createQqChannel(deps);
  },
};
