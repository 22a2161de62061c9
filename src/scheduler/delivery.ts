/**
 * Delivering what a scheduled turn said. The reply is always stored in its session by
 * the agent; for the CLI and the web (console, HTTP API) that is the delivery (the owner
 * reads it there). A QQ or WeCom peer gets it through the channel outbox (the channels
 * area's worker sends it; the run keeps the outbox ids, so "sent" is said only once the
 * platform accepted them), Home Assistant as an MQTT event (sent once the broker
 * acknowledged it); when that channel is not running it is kept in the session and
 * logged, never lost.
 */

import { errorMessage } from "../errors/index.ts";
import { type DeliveryKind, identityOf } from "../sessions/index.ts";
import type { Logger } from "../system/index.ts";
import { describeOrigin, type Origin } from "./origin.ts";

/** What a sender did with a text: stored in the channel outbox, or handed to a broker. */
export type SendReceipt = { outboxIds: number[] } | { accepted: boolean };

export interface ProactiveSender {
  /** Queues `text` for a peer; undefined when that channel is not running. */
  send(target: Origin & { peerId: string }, text: string): Promise<SendReceipt | undefined>;
}

/** A sender per way of reaching someone (the channel outbox, MQTT). */
export type ProactiveSenders = Partial<Record<Exclude<DeliveryKind, "session">, ProactiveSender>>;

/**
 * sent: the platform accepted it; queued: in the channel outbox (its rows tell when it
 * went); stored: in the session, where the CLI or console owner reads it; kept: it could
 * not go out (channel off or failing), kept in the session.
 */
export type DeliveryState = "sent" | "queued" | "stored" | "kept";

export interface Delivered {
  state: DeliveryState;
  /** Where the text went, in words for logs and run records. */
  detail: string;
  outboxIds?: number[];
}

export interface Delivery {
  /** Never throws. */
  deliver(target: Origin, text: string): Promise<Delivered>;
}

export function createDelivery(logger: Logger, senders: ProactiveSenders = {}): Delivery {
  return {
    async deliver(target, text) {
      const { peerId } = target;
      const kind = identityOf(target.channel).delivery;
      if (!peerId || kind === "session")
        return { state: "stored", detail: `stored in the ${target.channel} session` };
      const where = describeOrigin(target);
      const sender = senders[kind];
      if (sender) {
        try {
          const receipt = await sender.send({ ...target, peerId }, text);
          if (receipt && "outboxIds" in receipt && receipt.outboxIds.length > 0)
            return { state: "queued", detail: `queued to ${where}`, outboxIds: receipt.outboxIds };
          if (receipt && "accepted" in receipt)
            return receipt.accepted
              ? { state: "sent", detail: `sent to ${where}` }
              : { state: "queued", detail: `handed to ${where}; not confirmed yet` };
        } catch (error) {
          logger.warn("proactive send failed; reply kept in the session", {
            target: where,
            error: errorMessage(error),
          });
          return { state: "kept", detail: `send to ${where} failed; kept in the session` };
        }
      }
      logger.warn("channel not running; reply kept in the session", { target: where });
      return {
        state: "kept",
        detail: `channel ${target.channel} not running; kept in the session`,
      };
    },
  };
}
