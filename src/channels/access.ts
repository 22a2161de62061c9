/**
 * Who may talk to the bot on a channel: `allowFrom` (empty = anyone; sender ids, or
 * "group:<id>" for a whole group) and the group policy (answer only when @-mentioned,
 * or never in groups). Owner rights are not decided here: the agent's tool policy
 * checks the channel-qualified sender id against `agent.owners`.
 */
import type { InboundMessage } from "./channel.ts";

export interface AccessPolicy {
  allowFrom: string[];
  groupPolicy: "mention" | "disabled";
  /** Sender namespace when it is not the channel id (both WeCom channels use "wecom"). */
  identity?: string;
}

export type AccessDecision = { allowed: true } | { allowed: false; reason: string };

export function decideAccess(message: InboundMessage, policy: AccessPolicy): AccessDecision {
  if (message.chatType === "group") {
    if (policy.groupPolicy === "disabled")
      return { allowed: false, reason: "group messages are disabled (groupPolicy)" };
    if (!message.mentioned)
      return { allowed: false, reason: "group message without an @-mention (groupPolicy)" };
  }
  if (policy.allowFrom.length === 0) return { allowed: true };
  const prefixed = `${policy.identity ?? message.channel}:${message.senderId}`;
  const allowed = policy.allowFrom.some(
    (entry) =>
      entry === message.senderId ||
      entry === prefixed ||
      (message.groupId !== undefined && entry === `group:${message.groupId}`),
  );
  return allowed ? { allowed: true } : { allowed: false, reason: "sender not in allowFrom" };
}
