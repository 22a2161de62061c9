/**
 * Where a scheduled turn came from and where its reply goes: the channel, chat type and
 * peer of the session that created it, and the sender on whose behalf it runs (owner
 * checks are made again at run time, so revoking an owner also stops their jobs). The
 * peer comes from the sender's address in the channel's identity (`wecom:U1` on
 * `wecom-bot` → `U1`), which the sessions area knows.
 */
import { z } from "../schema/index.ts";
import { parseConversation, peerOfSender } from "../sessions/index.ts";

export const originSchema = z.object({
  channel: z.string().check(z.minLength(1)),
  chatType: z.enum(["direct", "group", "system"]),
  /** User id (direct) or group id (group) on the channel; absent when nobody can be pushed to. */
  peerId: z.optional(z.string().check(z.minLength(1))),
  senderId: z.optional(z.string().check(z.minLength(1))),
});

export type Origin = z.infer<typeof originSchema>;

/** "qq:direct:OPENID" (`heartbeat.target`) → an origin; undefined when malformed. */
export function parseTarget(target: string): Origin | undefined {
  const found = parseConversation(target);
  return found && { channel: found.channel, chatType: found.chatType, peerId: found.peer };
}

export function describeOrigin(origin: Origin): string {
  return origin.peerId ? `${origin.channel}:${origin.chatType}:${origin.peerId}` : origin.channel;
}

/**
 * The origin of a chat turn: group chats answer in the group, direct chats to the
 * sender's platform id on that channel ("wecom:U1" on channel wecom-app → peer "U1").
 */
export function originFor(chat: {
  channel?: string;
  chatType?: Origin["chatType"];
  senderId?: string;
  groupId?: string;
}): Origin {
  const channel = chat.channel ?? "cli";
  const peerId = chat.chatType === "group" ? chat.groupId : peerOfSender(chat.senderId, channel);
  return {
    channel,
    chatType: chat.chatType ?? "direct",
    ...(chat.senderId ? { senderId: chat.senderId } : {}),
    ...(peerId ? { peerId } : {}),
  };
}
