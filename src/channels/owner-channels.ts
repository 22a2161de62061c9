/**
 * Where an owner (`qq:OPENID`, `wecom:USERID` in `agent.owners`) can be reached: the
 * enabled channels whose senders have that identity (both WeCom channels for `wecom:`),
 * with the peer to send to. `cli` and other ids without a channel have none.
 */
import type { ChannelsConfig } from "../config/index.ts";
import { identityOf, parseSenderAddress } from "../sessions/index.ts";
import type { ChannelTarget } from "./channel.ts";
import { CHANNELS } from "./channel-registry.ts";

export function ownerTargets(channels: ChannelsConfig, owner: string): ChannelTarget[] {
  const { identity, id: peerId } = parseSenderAddress(owner);
  if (!peerId) return [];
  return CHANNELS.flatMap((c) =>
    c.settings(channels) && identityOf(c.id).identity === identity
      ? [{ channel: c.id, chatType: "direct" as const, peerId }]
      : [],
  );
}
