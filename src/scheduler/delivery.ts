/**
 * Delivering what a scheduled turn said. A turn that came from the CLI or the HTTP API
 * has its reply stored in its session by the agent, and that is the delivery (the owner
 * reads it with `clawbox sessions show` or the API). A channel peer gets it through the
 * channel outbox (the channels area's worker sends it); when that channel is not
 * configured it is kept in the session and logged, never lost.
 */
import type { Logger } from "../system/index.ts";
import { describeOrigin, type Origin } from "./origin.ts";

export interface ProactiveSender {
  /** Queues `text` for a channel peer; false when that channel is not running. */
  send(target: Origin & { peerId: string }, text: string): Promise<boolean>;
}

export interface Delivery {
  /** Where the text went, in words for logs and run records. Never throws. */
  deliver(target: Origin, text: string): Promise<string>;
}

export function createDelivery(logger: Logger, sender?: ProactiveSender): Delivery {
  return {
    async deliver(target, text) {
      const { peerId } = target;
      if (!peerId) return `stored in the ${target.channel} session`;
      if (sender) {
        try {
          if (await sender.send({ ...target, peerId }, text))
            return `queued to ${describeOrigin(target)}`;
        } catch (error) {
          logger.warn("proactive send failed; reply kept in the session", {
            target: describeOrigin(target),
            error: error instanceof Error ? error.message : String(error),
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
