/**
 * `/pair` on a channel: what the bot answers, decided before any agent run (the model
 * never sees the message). A stranger in a direct chat gets a code bound to their own
 * `<channel>:<id>` (or the one they already have; asking again within a minute gets one
 * "still pending" note without the code, then nothing; "try later" when too many are
 * waiting); an owner is told they already are one;
 * in a group nobody gets a code, only the hint to ask in a direct chat. With
 * `dmPolicy: "pairing"` any direct message from a stranger is answered like `/pair`.
 * A sender the channel's allowlist shuts out gets no answer at all.
 */
import {
  alreadyOwnerReply,
  busyReply,
  codeReply,
  groupPairReply,
  type PairingRequest,
  type PairingRequests,
  pendingReply,
} from "../pairing/index.ts";
import type { AccessDecision } from "./access.ts";
import type { InboundMessage } from "./channel.ts";

/** True for the text `/pair` (any case, surrounding spaces, an @-mention already stripped). */
export function isPairCommand(text: string): boolean {
  return /^\/pair$/i.test(text.trim());
}

export interface PairingHost {
  requests: PairingRequests;
  /**
   * Every request that got a code: logged; for a new one (`fresh`) an owner who is due a
   * notice is told (`noticePairingRequest`); `waiting` requests are pending in all.
   */
  requested(request: PairingRequest, waiting: number, fresh: boolean): void;
}

/** The reply to send (undefined: none) and why, for the inbox row. */
export interface PairOutcome {
  reply: string | undefined;
  reason: string;
}

/**
 * The answer to a pairing message, or undefined when the message is not about pairing
 * (then it goes its usual way).
 */
export function answerPairing(
  message: InboundMessage,
  access: AccessDecision,
  owner: boolean,
  ownerId: string,
  host: PairingHost,
): PairOutcome | undefined {
  const command = isPairCommand(message.text);
  const offered = !access.allowed && access.pair === true;
  if (!command && !offered) return undefined;
  if (message.chatType === "group") {
    return access.allowed
      ? { reply: groupPairReply(), reason: "pairing: only in a direct chat" }
      : { reply: undefined, reason: access.reason };
  }
  if (owner)
    return {
      reply: command ? alreadyOwnerReply() : undefined,
      reason: "pairing: already an owner",
    };
  if (!access.allowed && !offered) return { reply: undefined, reason: access.reason };
  const answer = host.requests.ask({
    channel: message.channel,
    senderId: message.senderId,
    ownerId,
    ...(message.senderName ? { senderName: message.senderName } : {}),
    messageId: message.messageId,
  });
  switch (answer.kind) {
    case "pending":
      return { reply: pendingReply(answer.request), reason: "pairing: told the code is pending" };
    case "quiet":
      return { reply: undefined, reason: "pairing: asked again within a minute" };
    case "full":
      return {
        reply: busyReply(answer.retryAfterMs),
        reason: "pairing: too many requests waiting",
      };
    case "code":
      host.requested(answer.request, answer.waiting, answer.fresh);
      return {
        reply: codeReply(answer.request),
        reason: answer.fresh ? "pairing: code sent" : "pairing: code sent again",
      };
  }
}
