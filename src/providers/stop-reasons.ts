/**
 * Ways a remote model ends a reply that are neither a finish nor a transport failure,
 * turned into classified errors so the user gets plain words instead of an empty
 * "successful" reply:
 * - OpenAI `finish_reason: "content_filter"` and a streamed `delta.refusal`, Anthropic
 *   `stop_reason: "refusal"` and `"pause_turn"` → PROVIDER_STOPPED with the raw reason in
 *   `details.stopReason`;
 * - Anthropic `"model_context_window_exceeded"` → CONTEXT_OVERFLOW (compact and retry);
 * - MiniMax `base_resp.status_code` (sent even with HTTP 200) → the matching class, so
 *   a bad key rotates like a 401. Codes from MiniMax's published error-code table.
 */
import { ClawboxError, type ErrorCode } from "../errors/index.ts";
import type { ClassifyContext } from "./classify-error.ts";
import { scrub } from "./classify-error.ts";

const STOPPED_WHAT: Record<string, string> = {
  content_filter: "the reply was stopped by the service's content filter",
  refusal: "the model refused to answer",
  pause_turn: "the service paused the turn before it finished",
};

/**
 * A reply the model or service ended early for `reason` (content_filter, refusal,
 * pause_turn); `said` is what the model gave as its reason (OpenAI's `refusal` text), for
 * the log.
 */
export function stoppedEarly(provider: string, reason: string, said?: string): ClawboxError {
  if (reason === "model_context_window_exceeded") {
    return new ClawboxError(
      "CONTEXT_OVERFLOW",
      `${provider}: the reply stopped because the model's context window is full`,
      { details: { provider, stopReason: reason } },
    );
  }
  return new ClawboxError(
    "PROVIDER_STOPPED",
    `${provider}: ${STOPPED_WHAT[reason] ?? `the reply stopped early (${reason})`}${said ? `: ${said}` : ""}`,
    { details: { provider, stopReason: reason } },
  );
}

const MINIMAX_CODES: Record<number, ErrorCode> = {
  1000: "PROVIDER_NETWORK", // unknown error
  1001: "PROVIDER_TIMEOUT", // request timed out
  1002: "PROVIDER_RATE_LIMIT", // RPM rate limit
  1004: "PROVIDER_AUTH", // authentication failed
  1008: "PROVIDER_BILLING", // insufficient balance
  1013: "PROVIDER_NETWORK", // internal service error
  1027: "PROVIDER_STOPPED", // output content flagged
  1039: "PROVIDER_RATE_LIMIT", // TPM token rate limit
  2013: "PROVIDER_BAD_RESPONSE", // invalid request parameters
  2049: "PROVIDER_AUTH", // invalid API key
};

/** Classifies a MiniMax `base_resp` error. */
export function classifyMinimaxStatus(
  status: number,
  message: string,
  ctx: ClassifyContext,
): ClawboxError {
  const code = MINIMAX_CODES[status] ?? "PROVIDER_BAD_RESPONSE";
  const text = scrub(message, ctx.secrets);
  return new ClawboxError(code, `${ctx.provider}: MiniMax error ${status}: ${text}`, {
    ...(code === "PROVIDER_AUTH" ? { hint: "check the key in models.providers" } : {}),
    details: {
      provider: ctx.provider,
      minimaxStatus: status,
      ...(code === "PROVIDER_STOPPED" ? { stopReason: "content_filter" } : {}),
    },
  });
}
