/**
 * Telling the person who asked to pair that they were approved, on their own platform:
 * as one more reply to their `/pair` message while its reply window is open (free on QQ,
 * where proactive messages are rationed), else as a proactive message. Stored in the
 * outbox, so it works from `clawbox pairing approve` in another process too: the running
 * service's outbox worker sends it within a second.
 */
import type { Database } from "bun:sqlite";
import type { ChannelsConfig } from "../config/index.ts";
import type { PairingRequest } from "../pairing/index.ts";
import { WINDOW_SAFETY_MS } from "./dispatcher.ts";
import { Outbox } from "./outbox.ts";
import { enabledChannel, enqueueProactive } from "./proactive.ts";
import { shapeReply } from "./reply-shaping.ts";

/** Stores `text` for the requester; returns the outbox ids. Throws when the channel is off. */
export function tellRequester(
  db: Database,
  channels: ChannelsConfig,
  request: PairingRequest,
  text: string,
  now = Date.now(),
): number[] {
  const settings = enabledChannel(channels, request.channel);
  const target = {
    channel: request.channel,
    chatType: "direct" as const,
    peerId: request.senderId,
  };
  const { capabilities } = settings;
  const deadline = request.askedAt + capabilities.replyWindowMs.direct - WINDOW_SAFETY_MS;
  if (now >= deadline) return enqueueProactive(db, channels, target, text);
  const parts = shapeReply(text, capabilities);
  const ids = db.transaction(
    () =>
      new Outbox(db).enqueue(target, parts, {
        replyTo: request.messageId,
        expiresAt: deadline,
        maxSeq: capabilities.maxRepliesPerMessage,
      }).ids,
  )();
  // Every reply that message allows is used up: send it as a message of its own.
  return ids.length > 0 ? ids : enqueueProactive(db, channels, target, text);
}
