/**
 * The answer in OpenAI's shapes: one `chat.completion` object, or a stream of
 * `chat.completion.chunk` objects (a first chunk with the role, one per piece of reply
 * text, one with `finish_reason`, and — when the client asked `stream_options.include_usage`
 * — a last one with empty `choices` and the `usage`). Usage is the sum over every model
 * call of the turn (a turn that ran tools calls the model more than once).
 */
import { randomUUID } from "node:crypto";
import type { ChatBackendEvent } from "../chat-backend.ts";

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export type FinishReason = "stop" | "length";

export interface CompletionIds {
  id: string;
  created: number;
  model: string;
}

export function completionIds(model: string): CompletionIds {
  return {
    id: `chatcmpl-${randomUUID().replaceAll("-", "")}`,
    created: Math.floor(Date.now() / 1000),
    model,
  };
}

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;

/** Adds up the usage of the turn's model calls from the agent's `turn_end` events. */
export function createUsageTally() {
  let prompt = 0;
  let completion = 0;
  let cached = 0;
  let finish: FinishReason = "stop";
  return {
    add(event: ChatBackendEvent): void {
      if (event.type !== "turn_end") return;
      const message = event.message as { usage?: Record<string, unknown>; stopReason?: unknown };
      const usage = message?.usage ?? {};
      prompt += count(usage.input) + count(usage.cacheRead) + count(usage.cacheWrite);
      completion += count(usage.output);
      cached += count(usage.cacheRead);
      finish = message?.stopReason === "length" ? "length" : "stop";
    },
    usage(): CompletionUsage {
      return {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: { cached_tokens: cached },
      };
    },
    finishReason: (): FinishReason => finish,
  };
}

export function completion(
  ids: CompletionIds,
  content: string,
  finish: FinishReason,
  usage: CompletionUsage,
) {
  return {
    ...ids,
    object: "chat.completion",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, refusal: null },
        logprobs: null,
        finish_reason: finish,
      },
    ],
    usage,
  };
}

/** One streamed chunk; `usage: null` on every chunk but the last when usage was asked for. */
export function completionChunk(
  ids: CompletionIds,
  delta: { role?: "assistant"; content?: string },
  finish: FinishReason | null,
  includeUsage: boolean,
) {
  return {
    ...ids,
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The last chunk when `stream_options.include_usage` was asked: no choices, the usage. */
export function usageChunk(ids: CompletionIds, usage: CompletionUsage) {
  return { ...ids, object: "chat.completion.chunk", choices: [], usage };
}
