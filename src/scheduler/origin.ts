/**
 * Where a scheduled turn came from and where its reply goes: the channel, chat type and
 * peer of the session that created it, and the sender on whose behalf it runs (owner
 * checks are made again at run time, so revoking an owner also stops their jobs' tools).
 */
import { z } from "../schema/index.ts";

export const originSchema = z.object({
  channel: z.string().check(z.minLength(1)),
  chatType: z.enum(["direct", "group", "system"]),
  /** User id (direct) or group id (group) on the channel; absent for CLI/HTTP. */
  peerId: z.optional(z.string().check(z.minLength(1))),
  senderId: z.optional(z.string().check(z.minLength(1))),
});

export type Origin = z.infer<typeof originSchema>;

/** "qq:direct:OPENID" → an origin; undefined when malformed. */
export function parseTarget(target: string): Origin | undefined {
  const match = /^([a-z0-9_-]+):(direct|group):(\S+)$/.exec(target);
  if (!match) return undefined;
  return {
    channel: match[1] ?? "",
    chatType: match[2] === "group" ? "group" : "direct",
    peerId: match[3] ?? "",
  };
}

export function describeOrigin(origin: Origin): string {
  return origin.peerId ? `${origin.channel}:${origin.chatType}:${origin.peerId}` : origin.channel;
}

/**
 * The origin of a chat turn: group chats answer in the group, direct chats to the
 * sender's platform id ("qq:OPENID" on channel qq → peer "OPENID"); CLI and HTTP
 * senders have no platform peer (their session is the delivery).
 */
/** Channels without a peer to push to: their session is the delivery. */
const LOCAL_CHANNELS = new Set(["cli", "web", "http", "heartbeat", "cron", "followups"]);

export function originFor(chat: {
  channel?: string;
  chatType?: Origin["chatType"];
  senderId?: string;
  groupId?: string;
}): Origin {
  const channel = chat.channel ?? "cli";
  const prefix = `${channel}:`;
  const peerId = LOCAL_CHANNELS.has(channel)
    ? undefined
    : chat.chatType === "group"
      ? chat.groupId
      : chat.senderId?.startsWith(prefix)
        ? chat.senderId.slice(prefix.length)
        : undefined;
  return {
    channel,
    chatType: chat.chatType ?? "direct",
    ...(chat.senderId ? { senderId: chat.senderId } : {}),
    ...(peerId ? { peerId } : {}),
  };
}
