/**
 * One streamed answer of the intelligent bot (`aibot_respond_msg`, msgtype "stream").
 * A stream frame carries the whole text so far, so updates coalesce: at most one
 * frame is in flight, and the next one goes out when both its ack has come back and
 * the throttle allows (every `throttleMs` or `throttleChars` new characters).
 * Guarantees: `open` sends the first `finish:false` frame at once (before the model
 * has produced anything); `finish` waits for the frame in flight, then sends exactly
 * one `finish:true` frame with the full text; nothing is sent after it.
 */

import { errorMessage } from "../../errors/index.ts";
import type { Logger } from "../../system/index.ts";

export interface StreamReplyOptions {
  /** Sends one stream frame and resolves on its ack; frames never overlap. */
  sendFrame(content: string, finish: boolean): Promise<void>;
  logger: Logger;
  /** Text of the first frame, shown while the model is still thinking. */
  placeholder?: string;
  throttleMs?: number;
  throttleChars?: number;
  now?: () => number;
}

export interface StreamReply {
  open(): void;
  /** The cleaned reply text so far. */
  update(text: string): void;
  /** Sends `finish:true` with `text`; resolves after its ack (rejects if it failed). */
  finish(text: string): Promise<void>;
  readonly finished: boolean;
}

export const STREAM_PLACEHOLDER = "…";

export function createStreamReply(options: StreamReplyOptions): StreamReply {
  const throttleMs = options.throttleMs ?? 500;
  const throttleChars = options.throttleChars ?? 200;
  const now = options.now ?? Date.now;
  let inFlight: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sentText = "";
  let sentAt = 0;
  let latest = "";
  let opened = false;
  let finished = false;

  function push(content: string, finish: boolean): Promise<void> {
    sentText = content;
    sentAt = now();
    const frame = options.sendFrame(content, finish);
    inFlight = frame
      .catch((error: unknown) => {
        if (!finish) {
          options.logger.warn("WeCom bot: a stream update was not delivered", {
            reason: errorMessage(error),
          });
        }
      })
      .finally(() => {
        inFlight = undefined;
        if (!finished) flushIfDue();
      });
    return frame;
  }

  function flushIfDue(): void {
    if (finished || inFlight || latest === "" || latest === sentText) return;
    const waited = now() - sentAt;
    if (waited >= throttleMs || latest.length - sentText.length >= throttleChars) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      void push(latest, false);
      return;
    }
    timer ??= setTimeout(() => {
      timer = undefined;
      flushIfDue();
    }, throttleMs - waited);
  }

  return {
    get finished() {
      return finished;
    },
    open() {
      if (opened) return;
      opened = true;
      void push(options.placeholder ?? STREAM_PLACEHOLDER, false);
    },
    update(text) {
      if (finished || text.trim() === "") return;
      latest = text;
      if (opened) flushIfDue();
    },
    async finish(text) {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      while (inFlight) await inFlight;
      await push(text, true);
    },
  };
}
