/**
 * Who may talk to the bot on a channel: `allowFrom` (empty = anyone; sender ids, or
 * "group:<id>" for a whole group), the group policy (answer only when @-mentioned, or
 * never in groups) and the direct-chat policy `dmPolicy` ("open", "allowlist", or
 * "pairing": a stranger gets a pairing code instead of an answer). An owner may always
 * chat directly. Owner rights themselves are not decided here: the agent's tool policy
 * checks the channel-qualified sender id against `agent.owners`.
 */
import { senderAddress } from "../sessions/index.ts";
import type { InboundMessage } from "./channel.ts";

export interface AccessPolicy {
  allowFrom: string[];
  groupPolicy: "mention" | "disabled";
  /** Unset: "allowlist" when `allowFrom` lists anyone, else "open". */
  dmPolicy?: "open" | "allowlist" | "pairing" | undefined;
}

/** `pair`: not admitted, but offered pairing (dmPolicy "pairing"). */
export type AccessDecision = { allowed: true } | { allowed: false; reason: string; pair?: boolean };

/** `owner`: the sender is in `agent.owners` (always admitted to a direct chat). */
export function decideAccess(
  message: InboundMessage,
  policy: AccessPolicy,
  owner = false,
): AccessDecision {
  if (message.chatType === "group") {
    if (policy.groupPolicy === "disabled")
      return { allowed: false, reason: "group messages are disabled (groupPolicy)" };
    if (!message.mentioned)
      return { allowed: false, reason: "group message without an @-mention (groupPolicy)" };
  }
  if (message.chatType === "direct") {
    if (owner) return { allowed: true };
    const mode = policy.dmPolicy ?? (policy.allowFrom.length > 0 ? "allowlist" : "open");
    if (mode === "open" || listed(message, policy)) return { allowed: true };
    if (mode === "pairing")
      return { allowed: false, pair: true, reason: "not paired yet (dmPolicy pairing)" };
    return { allowed: false, reason: "sender not in allowFrom" };
  }
  if (policy.allowFrom.length === 0) return { allowed: true };
  return listed(message, policy)
    ? { allowed: true }
    : { allowed: false, reason: "sender not in allowFrom" };
}

function listed(message: InboundMessage, policy: AccessPolicy): boolean {
  // The sender's address in its identity's namespace (both WeCom channels: "wecom:USERID").
  const prefixed = senderAddress(message.channel, message.senderId);
  return policy.allowFrom.some(
    (entry) =>
      entry === message.senderId ||
      entry === prefixed ||
      (message.groupId !== undefined && entry === `group:${message.groupId}`),
  );
}
