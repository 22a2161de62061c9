/**
 * How a failed WeCom send becomes an outbox outcome: network trouble and platform
 * hiccups (-1 busy, HTTP 5xx, no ack) are retried; a refusal with an error code
 * (bad user id, content too long, no permission) will not change on retry and fails.
 */
import { ClawboxError, errorMessage } from "../../errors/index.ts";
import type { SendOutcome } from "../channel.ts";

const RETRYABLE_ERRCODES = new Set([-1, 42001, 40014]);

export function sendFailure(error: unknown): SendOutcome {
  const reason = errorMessage(error);
  if (error instanceof ClawboxError && error.code === "CHANNEL_API") {
    const errcode = error.details?.errcode;
    if (typeof errcode === "number" && !RETRYABLE_ERRCODES.has(errcode)) {
      return { kind: "failed", reason };
    }
  }
  return { kind: "retry", reason };
}
