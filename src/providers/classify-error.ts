/**
 * Maps provider failures to ClawboxError codes the outer loop branches on: rotate the
 * auth profile (PROVIDER_AUTH, PROVIDER_RATE_LIMIT), retry the same key after a pause
 * (PROVIDER_OVERLOADED: the whole service is busy, every key gets the same answer),
 * fall back (PROVIDER_BILLING, PROVIDER_NETWORK, PROVIDER_TIMEOUT, MODEL_CRASHED),
 * compact and retry (CONTEXT_OVERFLOW). Overload is recognized before rate limits,
 * rate-limit and billing texts before overflow ones, because some providers word quota
 * errors like "too many tokens". A server refusing the requested thinking level is marked
 * `details.thinkingLevelRejected` (the agent steps the level down). Texts are scrubbed of
 * the given secrets before they reach a message.
 */
import { ClawboxError, type ErrorCode } from "../errors/index.ts";
import { redact } from "../system/index.ts";

const RATE_LIMIT = [
  /rate[ _-]?limit/i,
  /too many requests/i,
  /\b429\b/,
  /throttl/i,
  /请求过于频繁|限流/,
];
/** Service-wide overload: Anthropic 529 `overloaded_error`, OpenAI 503 "overloaded". */
const OVERLOADED = [/overloaded/i, /server (is )?(currently )?busy/i, /服务(器)?繁忙|负载过高/];
const BILLING = [
  /billing/i,
  /insufficient[_ ](quota|balance|credit|funds)/i,
  /exceeded your current quota/i,
  /credit balance/i,
  /payment required/i,
  /\barrearage\b|欠费|余额不足/i,
];
const OVERFLOW = [
  /request_too_large/i,
  /context[_ ]length[_ ]exceeded/i,
  /context length exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /exceeds? (the )?model'?s? context window/i,
  /context_window_exceeded/i,
  /input is too long/i,
  /exceeds the available context size/i,
  /too many tokens/i,
  /reduce the length of the (messages|prompt)/i,
  /context (window|size) (is )?(too small|exceeded)/i,
  // llama-server's error type; DashScope (Qwen): "Range of input length should be [1, 30720]"
  /exceed_context_size_error/i,
  /range of input length should be/i,
  // Ollama: its runner's errorInputTooLong (HTTP 400, or 500 where the status is lost)
  // and, since its llama-server runner, "the prompt is longer than the context length
  // currently available to the model" (llm/llama_server.go)
  /input length exceeds the context length/i,
  /prompt is longer than the context length/i,
  // vLLM: "The decoder prompt (length 40000) is longer than the maximum model length of
  // 32768" (vllm/v1/engine/processor.py, _validate_model_input)
  /is longer than the maximum model length/i,
  // Mistral, vLLM, Moonshot, Gemini, MiniMax wordings
  /too large for model with \d+ maximum context length/i,
  /exceeded model token limit/i,
  /input token count.*exceeds the maximum/i,
  /context window exceeds limit/i,
  /model_context_window_exceeded/i,
  /上下文(过长|长度|超出|超过)|超出.*(上下文|最大长度)|超过.*最大.*长度/,
];

/**
 * A server refusing the thinking/reasoning level it was asked for: Ollama's OpenAI layer
 * ("invalid reasoning value: 'minimal' (must be …)", and `"m" does not support thinking`
 * for a model without thinking), OpenAI ("Unsupported value: 'reasoning_effort' does not
 * support 'minimal' with this model"), and similar wordings.
 */
const THINKING_LEVEL_REJECTED = [
  /\b(thinking|reasoning)(_effort| effort| level|\.|\b)[^\n]{0,80}\b(not supported|unsupported|invalid|not allowed|does not support|not available)/i,
  /invalid reasoning (value|effort)/i,
  /does not support (thinking|reasoning)/i,
];

export function isThinkingLevelRejectedText(text: string): boolean {
  return THINKING_LEVEL_REJECTED.some((re) => re.test(text));
}

export interface ClassifyContext {
  /** Provider id, named in the message. */
  provider: string;
  /** Secrets that must not appear in the message (API keys of this request). */
  secrets?: string[];
  retryAfterMs?: number;
}

export function isOverloadedText(text: string): boolean {
  return OVERLOADED.some((re) => re.test(text));
}

export function isRateLimitText(text: string): boolean {
  return RATE_LIMIT.some((re) => re.test(text));
}

export function isBillingText(text: string): boolean {
  return BILLING.some((re) => re.test(text));
}

/** Overflow wording, after excluding rate-limit and billing messages. */
export function isOverflowText(text: string): boolean {
  if (isOverloadedText(text) || isRateLimitText(text) || isBillingText(text)) return false;
  return OVERFLOW.some((re) => re.test(text));
}

/** Classifies a non-2xx HTTP response by status and body text. */
export function classifyHttpError(
  status: number,
  body: string,
  ctx: ClassifyContext,
): ClawboxError {
  const detail = scrub(extractMessage(body), ctx.secrets);
  const make = (code: ErrorCode, what: string, hint?: string) =>
    new ClawboxError(
      code,
      `${ctx.provider}: ${what} (HTTP ${status}${detail ? `: ${detail}` : ""})`,
      {
        ...(hint ? { hint } : {}),
        details: {
          provider: ctx.provider,
          status,
          ...(ctx.retryAfterMs !== undefined ? { retryAfterMs: ctx.retryAfterMs } : {}),
          ...(status < 500 && isThinkingLevelRejectedText(detail)
            ? { thinkingLevelRejected: true }
            : {}),
        },
      },
    );
  if (status === 401 || status === 403)
    return make("PROVIDER_AUTH", "API key rejected", "check the key in models.providers");
  if (status === 402 || isBillingText(detail))
    return make(
      "PROVIDER_BILLING",
      "billing or quota problem",
      "top up the account or switch provider",
    );
  if (status === 529 || ((status === 503 || status === 429) && isOverloadedText(detail)))
    return make(
      "PROVIDER_OVERLOADED",
      "service overloaded",
      "it is busy for everyone; retry later",
    );
  if (status === 429 || isRateLimitText(detail)) return make("PROVIDER_RATE_LIMIT", "rate limited");
  if (status === 413 || isOverflowText(detail))
    return make("CONTEXT_OVERFLOW", "prompt exceeds the model's context window");
  if (status === 408 || status === 504) return make("PROVIDER_TIMEOUT", "request timed out");
  if (status >= 500) return make("PROVIDER_NETWORK", "server error");
  return make("PROVIDER_BAD_RESPONSE", "request refused");
}

/** Classifies an error reported inside a stream (OpenAI `error` object, Anthropic `error` event). */
export function classifyStreamError(
  type: string,
  message: string,
  ctx: ClassifyContext,
): ClawboxError {
  const text = scrub(`${type} ${message}`.trim(), ctx.secrets);
  const make = (code: ErrorCode, what: string) =>
    new ClawboxError(code, `${ctx.provider}: ${what}: ${text}`, {
      details: { provider: ctx.provider, type },
    });
  if (/authentication|permission|invalid_api_key|unauthorized/i.test(type))
    return make("PROVIDER_AUTH", "API key rejected");
  if (isBillingText(text)) return make("PROVIDER_BILLING", "billing or quota problem");
  if (isOverloadedText(text)) return make("PROVIDER_OVERLOADED", "service overloaded");
  if (isRateLimitText(text)) return make("PROVIDER_RATE_LIMIT", "rate limited");
  if (isOverflowText(text))
    return make("CONTEXT_OVERFLOW", "prompt exceeds the model's context window");
  if (/timeout/i.test(text)) return make("PROVIDER_TIMEOUT", "timed out");
  if (/api_error|server_error|internal/i.test(text))
    return make("PROVIDER_NETWORK", "server error");
  return make("PROVIDER_BAD_RESPONSE", "error in response stream");
}

/** Classifies a thrown fetch/stream failure. `timedOut` and `aborted` come from our own signals. */
export function classifyThrown(
  error: unknown,
  ctx: ClassifyContext & { timedOut?: boolean; aborted?: boolean; timeoutMs?: number },
): ClawboxError {
  if (error instanceof ClawboxError) return error;
  if (ctx.aborted)
    return new ClawboxError("ABORTED", `${ctx.provider}: request aborted`, { cause: error });
  if (ctx.timedOut) {
    return new ClawboxError(
      "PROVIDER_TIMEOUT",
      `${ctx.provider}: no response for ${ctx.timeoutMs ?? "?"} ms`,
      {
        hint: "the service is slow or unreachable; raise timeoutMs or try later",
        cause: error,
      },
    );
  }
  const text = scrub(
    error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    ctx.secrets,
  );
  return new ClawboxError("PROVIDER_NETWORK", `${ctx.provider}: connection failed: ${text}`, {
    hint: "check the network and models.providers.<id>.baseUrl",
    cause: error,
  });
}

/** The human part of an error body: `error.message`, `message`, or the raw text (capped). */
function extractMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    const found = findMessage(parsed);
    if (found) return found.slice(0, 500);
  } catch {
    // not JSON: use the raw text
  }
  return body.trim().slice(0, 500);
}

function findMessage(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.error === "object" && record.error !== null) {
    const inner = record.error as Record<string, unknown>;
    const parts = [inner.type, inner.code, inner.message].filter(
      (p): p is string => typeof p === "string",
    );
    if (parts.length > 0) return parts.join(": ");
  }
  if (typeof record.error === "string") return record.error;
  if (typeof record.message === "string") return record.message;
  return undefined;
}

/** Removes known secrets and anything key-shaped from `text`. */
export function scrub(text: string, secrets: string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  return String(redact(out)).replace(/\b(sk|key|ak)-[A-Za-z0-9_*-]{6,}/gi, "$1-[redacted]");
}
