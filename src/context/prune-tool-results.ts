/**
 * Pruning (SPEC §6), in memory only — the stored transcript is never rewritten. Once
 * the prompt cache TTL has expired (or the history is over budget), tool results older
 * than the last 3 assistant turns are soft-trimmed (results over 4000 chars keep 1500
 * head + 1500 tail chars); if still over budget they are hard-cleared, oldest first.
 * Old images and media references become short placeholders. Messages from the 3rd-last
 * assistant message onward are returned as the same objects (byte-identical). Local
 * models call this only when it pays: pruning changes the prefix and costs the KV cache.
 */
import type { ImageContent, Message, TextContent } from "../messages/index.ts";
import type { BranchMessage } from "./branch-messages.ts";

export const HARD_CLEAR_TEXT = "[Old tool result content cleared]";
export const IMAGE_REMOVED_TEXT = "[image data removed - already processed by model]";
export const MEDIA_REMOVED_TEXT = "[media reference removed - already processed by model]";

const MEDIA_REF = /\[media attached[^\]]*\]|^MEDIA:\S+$/gm;
const MEDIA_TEST = /\[media attached[^\]]*\]|^MEDIA:\S+$/m;

export interface PruneOptions {
  now: number;
  ttlMs: number;
  keepLastAssistants: number;
  softTrimMinChars: number;
  softTrimHeadChars: number;
  softTrimTailChars: number;
  /** History token budget and a counter; when given, hard-clear runs while over it. */
  budget?: { tokens: number; countItem(item: BranchMessage): Promise<number> };
  /** Force pruning (history over budget) even before the TTL expired. */
  overBudget?: boolean;
}

export interface PruneReport {
  pruned: boolean;
  reason: "ttl" | "budget" | "not-needed" | "nothing-old";
  softTrimmed: number;
  hardCleared: number;
  imagesRemoved: number;
  mediaRemoved: number;
}

function lastAssistantTime(messages: readonly BranchMessage[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]?.message;
    if (m?.role === "assistant") return m.timestamp;
  }
  return undefined;
}

/** Index from which messages are protected (the Nth-last assistant message). */
export function protectedFrom(messages: readonly BranchMessage[], keep: number): number {
  if (keep <= 0) return messages.length;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.message.role === "assistant" && ++seen === keep) return i;
  }
  return 0;
}

function stripMedia(text: string, counter: { media: number }): string {
  return text.replace(MEDIA_REF, () => {
    counter.media += 1;
    return MEDIA_REMOVED_TEXT;
  });
}

function textBlocks(
  content: (TextContent | ImageContent)[],
  counter: { images: number; media: number },
): TextContent[] {
  return content.map((block) => {
    if (block.type === "image") {
      counter.images += 1;
      return { type: "text", text: IMAGE_REMOVED_TEXT };
    }
    return { type: "text", text: stripMedia(block.text, counter) };
  });
}

function softTrim(text: string, o: PruneOptions): string | undefined {
  if (text.length <= o.softTrimMinChars) return undefined;
  const head = text.slice(0, o.softTrimHeadChars);
  const tail = text.slice(text.length - o.softTrimTailChars);
  return `${head}\n…[${text.length - head.length - tail.length} chars trimmed from an old tool result]…\n${tail}`;
}

function hasImageOrMedia(message: Message): boolean {
  if (typeof message.content === "string") return MEDIA_TEST.test(message.content);
  return message.content.some(
    (b) => b.type === "image" || (b.type === "text" && MEDIA_TEST.test(b.text)),
  );
}

export async function pruneToolResults(
  input: readonly BranchMessage[],
  options: PruneOptions,
): Promise<{ messages: BranchMessage[]; report: PruneReport }> {
  const report: PruneReport = {
    pruned: false,
    reason: "not-needed",
    softTrimmed: 0,
    hardCleared: 0,
    imagesRemoved: 0,
    mediaRemoved: 0,
  };
  const last = lastAssistantTime(input);
  const ttlExpired = last !== undefined && options.now - last > options.ttlMs;
  if (!ttlExpired && !options.overBudget) return { messages: [...input], report };
  const cutoff = protectedFrom(input, options.keepLastAssistants);
  if (cutoff === 0) return { messages: [...input], report: { ...report, reason: "nothing-old" } };
  report.reason = ttlExpired ? "ttl" : "budget";
  const counter = { images: 0, media: 0 };
  const out: BranchMessage[] = input.map((item, index) => {
    if (index >= cutoff) return item;
    const m = item.message;
    if (m.role === "toolResult") {
      const blocks = textBlocks(m.content, counter);
      const joined = blocks.map((b) => b.text).join("\n");
      const trimmed = softTrim(joined, options);
      if (trimmed !== undefined) report.softTrimmed += 1;
      const changed = trimmed !== undefined || blocks.some((b, k) => b !== m.content[k]);
      if (!changed) return item;
      return {
        entryId: item.entryId,
        message: {
          ...m,
          content: trimmed !== undefined ? [{ type: "text", text: trimmed }] : blocks,
        },
      };
    }
    if (m.role === "user" && hasImageOrMedia(m)) {
      const content =
        typeof m.content === "string"
          ? stripMedia(m.content, counter)
          : textBlocks(m.content, counter);
      return { entryId: item.entryId, message: { ...m, content } };
    }
    return item;
  });
  report.imagesRemoved = counter.images;
  report.mediaRemoved = counter.media;
  if (options.budget) {
    const { countItem } = options.budget;
    let tokens = 0;
    for (const item of out) tokens += await countItem(item);
    for (let i = 0; i < cutoff && tokens > options.budget.tokens; i++) {
      const item = out[i];
      if (item?.message.role !== "toolResult") continue;
      const text = item.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      if (text === HARD_CLEAR_TEXT) continue;
      const cleared: BranchMessage = {
        entryId: item.entryId,
        message: { ...item.message, content: [{ type: "text", text: HARD_CLEAR_TEXT }] },
      };
      tokens += (await countItem(cleared)) - (await countItem(item));
      out[i] = cleared;
      report.hardCleared += 1;
    }
  }
  report.pruned =
    report.softTrimmed + report.hardCleared + report.imagesRemoved + report.mediaRemoved > 0;
  return { messages: out, report };
}
