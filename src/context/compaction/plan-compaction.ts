/**
 * Where to cut and how to chunk. The cut point keeps recent turns whole and never falls
 * between a tool call and its result; summary input is grouped into units (an assistant
 * message with its tool results) that are never split across chunks. Chunk size adapts
 * to message size: 40% of the window, down to 15% when the average message exceeds 10%
 * of the window, divided by the 1.2 safety margin.
 */
import type { Message } from "../../messages/index.ts";
import type { BranchMessage } from "../branch-messages.ts";

export const CHUNK_RATIO = 0.4;
export const MIN_CHUNK_RATIO = 0.15;
export const SAFETY_MARGIN = 1.2;

/** Indexes where history may be cut: no earlier tool call has its result at or after it. */
export function validCutIndexes(messages: readonly BranchMessage[]): Set<number> {
  const valid = new Set<number>();
  const open = new Set<string>();
  messages.forEach((item, i) => {
    const m = item.message;
    if (
      i > 0 &&
      open.size === 0 &&
      m.role !== "toolResult" &&
      !item.entryId.startsWith("synthetic:")
    )
      valid.add(i);
    if (m.role === "assistant")
      for (const b of m.content) if (b.type === "toolCall") open.add(b.id);
    if (m.role === "toolResult") open.delete(m.toolCallId);
  });
  return valid;
}

/**
 * The first kept index: the earliest valid cut whose tail fits `keepRecentTokens`,
 * preferring a user message (turn start). 0 means there is nothing to summarize.
 */
export function findCutIndex(
  messages: readonly BranchMessage[],
  counts: readonly number[],
  keepRecentTokens: number,
): number {
  const valid = validCutIndexes(messages);
  let tail = 0;
  let best = 0;
  let bestUser = 0;
  for (let i = messages.length - 1; i >= 1; i--) {
    tail += counts[i] ?? 0;
    if (!valid.has(i)) continue;
    if (tail > keepRecentTokens && best !== 0) break;
    best = i;
    if (messages[i]?.message.role === "user") bestUser = i;
    if (tail > keepRecentTokens) break;
  }
  return bestUser !== 0 ? bestUser : best;
}

export interface Unit {
  items: BranchMessage[];
  tokens: number;
}

export function groupUnits(messages: readonly BranchMessage[], counts: readonly number[]): Unit[] {
  const units: Unit[] = [];
  messages.forEach((item, i) => {
    const last = units[units.length - 1];
    const joinsCall =
      item.message.role === "toolResult" &&
      last?.items.some(
        (x) =>
          x.message.role === "assistant" && x.message.content.some((b) => b.type === "toolCall"),
      );
    if (last && joinsCall) {
      last.items.push(item);
      last.tokens += counts[i] ?? 0;
    } else {
      units.push({ items: [item], tokens: counts[i] ?? 0 });
    }
  });
  return units;
}

export function chunkTokenLimit(
  contextWindow: number,
  messageCount: number,
  totalTokens: number,
): number {
  const average = messageCount > 0 ? totalTokens / messageCount : 0;
  const ratio = average > contextWindow * 0.1 ? MIN_CHUNK_RATIO : CHUNK_RATIO;
  return Math.max(256, Math.floor((contextWindow * ratio) / SAFETY_MARGIN));
}

export function chunkUnits(units: readonly Unit[], limit: number): Unit[][] {
  const chunks: Unit[][] = [];
  let current: Unit[] = [];
  let used = 0;
  for (const unit of units) {
    if (current.length > 0 && used + unit.tokens > limit) {
      chunks.push(current);
      current = [];
      used = 0;
    }
    current.push(unit);
    used += unit.tokens;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** A readable line-per-block form of a message for the summarizer. */
export function serializeMessage(message: Message): string {
  if (message.role === "user") {
    const text =
      typeof message.content === "string"
        ? message.content
        : message.content.map((b) => (b.type === "text" ? b.text : "[image]")).join("");
    return `[user] ${text}`;
  }
  if (message.role === "toolResult") {
    const text = message.content.map((b) => (b.type === "text" ? b.text : "[image]")).join("");
    return `[tool result ${message.toolName}${message.isError ? " (error)" : ""}] ${text}`;
  }
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "toolCall")
      parts.push(`[tool call ${block.name} ${JSON.stringify(block.arguments)}]`);
  }
  return `[assistant] ${parts.join("\n")}`;
}

export function oversizedPlaceholder(message: Message, tokens: number): string {
  const who = message.role === "toolResult" ? `tool result ${message.toolName}` : message.role;
  return `[${who}: oversized message of ~${tokens} tokens left out of the summary input]`;
}
