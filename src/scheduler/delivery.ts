/**
 * Delivering what a scheduled turn said. The reply is always stored in its session by
 * the agent; for the CLI and the web (console, HTTP API) that is the delivery (the owner
 * reads it there). A QQ or WeCom peer gets it through the channel outbox (the channels
 * area's worker sends it), Home Assistant as an MQTT event; when that channel is not
 * running it is kept in the session and logged, never lost.
 */

import { errorMessage } from "../errors/index.ts";
import { type DeliveryKind, identityOf } from "../sessions/index.ts";
import type { Logger } from "../system/index.ts";
import { describeOrigin, type Origin } from "./origin.ts";

export interface ProactiveSender {
  /** Queues `text` for a peer; false when that channel is not running. */
  send(target: Origin & { peerId: string }, text: string): Promise<boolean>;
}

/** A sender per way of reaching someone (the channel outbox, MQTT). */
export type ProactiveSenders = Partial<Record<Exclude<DeliveryKind, "session">, ProactiveSender>>;

export interface Delivery {
  /** Where the text went, in words for logs and run records. Never throws. */
  deliver(target: Origin, text: string): Promise<string>;
}

export function createDelivery(logger: Logger, senders: ProactiveSenders = {}): Delivery {
  return {
    async deliver(target, text) {
      const { peerId } = target;
      const kind = identityOf(target.channel).delivery;
      if (!peerId || kind === "session") return `stored in the ${target.channel} session`;
      const sender = senders[kind];
      if (sender) {
        try {
          if (await sender.send({ ...target, peerId }, text))
            return `queued to ${describeOrigin(target)}`;
        } catch (error) {
          logger.warn("proactive send failed; reply kept in the session", {
            target: describeOrigin(target),
            error: errorMessage(error),
          });
          return `send to ${describeOrigin(target)} failed; kept in the session`;
        }
      }
      logger.warn("channel not running; reply kept in the session", {
        target: describeOrigin(target),
      });
      return `channel ${target.channel} not running; kept in the session`;
    },
  };
}
