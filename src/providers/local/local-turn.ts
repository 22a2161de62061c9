/**
 * One generation turn on a session's KV-cache sequence. The prompt is compared with
 * what the sequence already holds and only the tokens after the longest common prefix
 * are evaluated; generated tokens stream out as text deltas (or, in JSON mode, as the
 * growing answer text and a final tool call). Counts of evaluated and reused tokens are
 * returned for usage and stats. Native failures propagate as thrown errors.
 */
import type { LlamaGrammarEvaluationState, LlamaModel, Token } from "node-llama-cpp";
import { ClawboxError } from "../../errors/index.ts";
import type { StopReason } from "../../messages/index.ts";
import type { AssistantMessageBuilder } from "../assistant-message-builder.ts";
import type { ProviderEvent } from "../provider.ts";
import { JsonReplyReader } from "./json-reply-reader.ts";
import type { SessionSlot } from "./session-sequences.ts";

export interface TurnInput {
  model: LlamaModel;
  slot: SessionSlot;
  promptTokens: Token[];
  /** The chat template's end-of-turn text: generation stops where the model writes one. */
  stops: readonly string[];
  /** Present in JSON mode (tools offered). */
  grammarState?: LlamaGrammarEvaluationState;
  kvReuse: boolean;
  temperature: number;
  seed?: number;
  maxTokens: number;
  signal?: AbortSignal;
  newToolCallId: () => string;
}

export interface TurnOutcome {
  stopReason: StopReason;
  /** Prompt tokens evaluated this turn (after the reused prefix). */
  evaluated: number;
  /** Prompt tokens found in the KV cache. */
  reused: number;
  output: number;
  /** Tokens to remember for the reply, when they reproduce it exactly. */
  replyTokens?: Token[];
}

export async function* runTurn(
  input: TurnInput,
  builder: AssistantMessageBuilder,
): AsyncGenerator<ProviderEvent, TurnOutcome> {
  const { model, slot, promptTokens } = input;
  const sequence = slot.sequence;
  const contextSize = sequence.contextSize;
  if (promptTokens.length + 1 >= contextSize) {
    throw new ClawboxError(
      "CONTEXT_OVERFLOW",
      `prompt has ${promptTokens.length} tokens; the local context holds ${contextSize}`,
      {
        hint: "compact the session or raise models.providers.<id>.contextSize",
        details: { promptTokens: promptTokens.length, contextSize },
      },
    );
  }
  if (!input.kvReuse) await sequence.clearHistory();
  await sequence.adaptStateToTokens(promptTokens.slice(0, -1), false);
  const reused = sequence.nextTokenIndex;
  const toEvaluate = promptTokens.slice(reused);

  const reader = input.grammarState ? new JsonReplyReader() : undefined;
  const generated: Token[] = [];
  let decoded = "";
  let emitted = "";
  let stopReason: StopReason = "stop";
  let cutAt: number | undefined;

  const iterator = sequence.evaluate(toEvaluate, {
    temperature: input.temperature,
    ...(input.seed !== undefined ? { seed: input.seed } : {}),
    ...(input.grammarState ? { grammarEvaluationState: input.grammarState } : {}),
  });
  for await (const token of iterator) {
    if (input.signal?.aborted) {
      stopReason = "aborted";
      break;
    }
    generated.push(token);
    const text = model.detokenize(generated);
    const atLimit =
      generated.length >= input.maxTokens || sequence.nextTokenIndex + 1 >= contextSize;
    if (!text.endsWith("\uFFFD") || atLimit) {
      const fresh = text.slice(decoded.length);
      decoded = text;
      if (reader) {
        const delta = reader.push(fresh);
        if (delta) yield textDelta(builder, delta);
        if (reader.isComplete()) break;
      } else {
        const stop = firstStop(text, input.stops);
        const safeEnd = stop ?? text.length - partialStopLength(text, input.stops);
        if (safeEnd > emitted.length) {
          yield textDelta(builder, text.slice(emitted.length, safeEnd));
          emitted = text.slice(0, safeEnd);
        }
        if (stop !== undefined) {
          cutAt = stop;
          break;
        }
      }
    }
    if (atLimit) {
      stopReason = "length";
      break;
    }
  }

  if (reader && stopReason !== "aborted") {
    const reply = reader.parse();
    if (reply?.type === "toolCall") {
      const call = {
        type: "toolCall" as const,
        id: input.newToolCallId(),
        name: reply.name,
        arguments: reply.arguments,
      };
      builder.addToolCall(call);
      yield { type: "toolcall", toolCall: call };
      stopReason = "toolUse";
    }
  } else if (
    !reader &&
    stopReason !== "aborted" &&
    emitted.length < decoded.length &&
    cutAt === undefined
  ) {
    yield textDelta(builder, decoded.slice(emitted.length));
  }

  const replyTokens =
    cutAt === undefined ? generated : tokensForText(model, generated, decoded.slice(0, cutAt));
  return {
    stopReason,
    evaluated: toEvaluate.length,
    reused,
    output: generated.length,
    ...(replyTokens ? { replyTokens } : {}),
  };
}

function textDelta(builder: AssistantMessageBuilder, delta: string): ProviderEvent {
  builder.appendText(delta);
  return { type: "text_delta", delta };
}

function firstStop(text: string, stops: readonly string[]): number | undefined {
  let first: number | undefined;
  for (const stop of stops) {
    const index = text.indexOf(stop);
    if (index >= 0 && (first === undefined || index < first)) first = index;
  }
  return first;
}

/** Length of a suffix of `text` that could be the start of a stop string. */
function partialStopLength(text: string, stops: readonly string[]): number {
  let longest = 0;
  for (const stop of stops) {
    for (let n = Math.min(stop.length - 1, text.length); n > longest; n -= 1) {
      if (text.endsWith(stop.slice(0, n))) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

/** The shortest prefix of `tokens` that detokenizes to exactly `text`, if any. */
function tokensForText(model: LlamaModel, tokens: Token[], text: string): Token[] | undefined {
  for (let n = 0; n <= tokens.length; n += 1) {
    const candidate = model.detokenize(tokens.slice(0, n));
    if (candidate === text) return tokens.slice(0, n);
    if (candidate.length > text.length) return undefined;
  }
  return undefined;
}
