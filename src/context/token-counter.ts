/**
 * Token accounting: exact counts through the provider's tokenizer (the loaded llama
 * model) when it offers one, otherwise the CJK-aware estimate times the 1.2 safety
 * margin. Images count IMAGE_TOKENS; each message adds a small template overhead.
 */
import type { Message } from "../messages/index.ts";
import type { ChatTemplate } from "../providers/index.ts";
import {
  ESTIMATE_SAFETY_MARGIN,
  estimateTextTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
} from "./estimate-tokens.ts";

export interface TokenCounter {
  /** True when counts come from a real tokenizer. */
  readonly exact: boolean;
  /** The local model's chat template, when the source is a loaded local model. */
  readonly template?: ChatTemplate;
  count(text: string): Promise<number>;
  countMessage(message: Message): Promise<number>;
}

export interface TokenSource {
  countTokens?(text: string): Promise<number | undefined>;
  chatTemplate?(): Promise<ChatTemplate | undefined>;
}

/** The text that stands for a message's non-image content when counting. */
export function messageCountingText(message: Message): { text: string; images: number } {
  if (typeof message.content === "string") return { text: message.content, images: 0 };
  let text = "";
  let images = 0;
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "image") images += 1;
    else if (block.type === "thinking") text += block.thinking;
    else if (block.type === "toolCall") text += `${block.name}${JSON.stringify(block.arguments)}`;
  }
  return { text, images };
}

export const estimateTokens = (text: string): number =>
  Math.ceil(estimateTextTokens(text) * ESTIMATE_SAFETY_MARGIN);

/** Estimated tokens of one message (no tokenizer): the same rule `countMessage` falls back to. */
export function estimateMessageTokens(message: Message): number {
  const { text, images } = messageCountingText(message);
  return estimateTokens(text) + images * IMAGE_TOKENS + MESSAGE_OVERHEAD_TOKENS;
}

/** Estimated tokens of a whole prompt: system prompt plus messages. */
export function estimatePromptTokens(systemPrompt: string, messages: readonly Message[]): number {
  let total = estimateTokens(systemPrompt);
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

const PROMPT_PART_MEMO = 48;
const MEMO_MAX_CHARS = 64_000;

/**
 * A counter for one model. Probes the provider's tokenizer once; if it answers
 * undefined (model not loaded) the counter falls back to estimates for its lifetime.
 */
export async function createTokenCounter(source?: TokenSource): Promise<TokenCounter> {
  let exact = false;
  if (source?.countTokens) {
    try {
      exact = (await source.countTokens("probe")) !== undefined;
    } catch {
      exact = false;
    }
  }
  const template = exact ? await source?.chatTemplate?.().catch(() => undefined) : undefined;
  /** The count, and whether it is what this counter promises (exact when `exact`). */
  const measure = async (text: string): Promise<{ n: number; promised: boolean }> => {
    if (exact && source?.countTokens) {
      const n = await source.countTokens(text).catch(() => undefined);
      if (n !== undefined) return { n, promised: true };
    }
    return { n: estimateTokens(text), promised: !exact };
  };
  const count = async (text: string): Promise<number> => (await measure(text)).n;
  // Prompt parts (system prompt, tool schemas, workspace files) come again every turn,
  // byte-identical: their counts are kept, the most recent PROMPT_PART_MEMO of them.
  const memo = new Map<string, number>();
  const countPart = async (text: string): Promise<number> => {
    const hit = memo.get(text);
    if (hit !== undefined) {
      memo.delete(text);
      memo.set(text, hit);
      return hit;
    }
    const { n, promised } = await measure(text);
    // A failed exact count fell back to an estimate: not kept, the next call retries.
    if (promised && text.length <= MEMO_MAX_CHARS) {
      memo.set(text, n);
      for (const oldest of memo.keys()) {
        if (memo.size <= PROMPT_PART_MEMO) break;
        memo.delete(oldest);
      }
    }
    return n;
  };
  return {
    exact,
    ...(template ? { template } : {}),
    count: countPart,
    async countMessage(message) {
      const { text, images } = messageCountingText(message);
      return (await count(text)) + images * IMAGE_TOKENS + MESSAGE_OVERHEAD_TOKENS;
    },
  };
}
