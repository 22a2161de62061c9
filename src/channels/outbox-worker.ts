/**
 * Sends what the outbox holds, one row at a time, through the adapter of its channel.
 * Wakes on demand (a reply was stored) and otherwise polls once a second, so rows
 * stored by other areas (cron, heartbeat) or due for a retry go out without a signal.
 * A throwing adapter counts as a retryable failure; the loop itself never throws.
 * A reply that stays pending is logged at its 1st, 2nd, 4th, 8th … attempt, not at
 * every retry: an hour without network writes a few lines per reply, not hundreds.
 * A failure's reason is redacted (`redactReason`) before it is stored or logged.
 */

import { errorMessage } from "../errors/index.ts";
import { clockHint, type Logger } from "../system/index.ts";
import type { ChannelAdapter } from "./channel.ts";
import type { Outbox } from "./outbox.ts";

const POLL_MS = 1000;

/** Final outcomes always; a pending retry at attempts 1, 2, 4, 8 … (growing intervals). */
function worthLogging(state: string, attempts: number): boolean {
  return state !== "pending" || (attempts & (attempts - 1)) === 0;
}

export interface OutboxWorker {
  wake(): void;
  /** Stops after the send in flight (if any) settles. */
  stop(): Promise<void>;
}

export function startOutboxWorker(
  outbox: Outbox,
  adapters: () => Map<string, ChannelAdapter>,
  logger: Logger,
  /** Hides secrets a platform echoed in its error, before the reason is stored. */
  redactReason: (text: string) => string = (text) => logger.redact(text),
): OutboxWorker {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const sendDue = async () => {
    for (;;) {
      if (stopped) return;
      const live = adapters();
      const item = outbox.nextDue([...live.keys()]);
      if (!item) return;
      if (outbox.expireIfLate(item.id)) {
        logger.warn("reply expired unsent", { channel: item.channel, id: item.id });
        continue;
      }
      const adapter = live.get(item.channel);
      if (!adapter || !outbox.claim(item.id)) continue;
      const window = adapter.capabilities.duplicateCheckSeconds;
      const attempt = {
        ...item,
        attempts: item.attempts + 1,
        ...(window ? { duplicateCheck: outbox.duplicateCheckFits(item, window) } : {}),
      };
      let outcome: Awaited<ReturnType<ChannelAdapter["send"]>>;
      try {
        outcome = await adapter.send(attempt);
      } catch (error) {
        outcome = { kind: "retry", reason: errorMessage(error) };
      }
      if ("reason" in outcome) outcome = { ...outcome, reason: redactReason(outcome.reason) };
      const state = outbox.settle(attempt, outcome);
      const reason = "reason" in outcome ? outcome.reason : undefined;
      if (state !== "sent" && worthLogging(state, attempt.attempts))
        logger.warn(clockHint(reason) ?? "reply not sent", {
          channel: item.channel,
          id: item.id,
          state,
          attempt: attempt.attempts,
          reason,
          ...(state === "pending"
            ? { next: `logged again at attempt ${attempt.attempts * 2}` }
            : {}),
        });
    }
  };

  const tick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = sendDue()
      .catch((error: unknown) =>
        logger.error("outbox worker failed", {
          error: errorMessage(error),
        }),
      )
      .finally(() => {
        running = undefined;
        if (stopped) return;
        if (again) {
          again = false;
          tick();
          return;
        }
        timer = setTimeout(tick, POLL_MS);
        timer.unref?.();
      });
  };
  tick();

  return {
    wake: tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
