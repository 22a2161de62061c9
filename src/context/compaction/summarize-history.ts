/**
 * Summarizes older history with the configured model, in three levels so a compaction
 * never fails the turn: (1) every message, chunked; (2) the same with oversized
 * messages replaced by placeholders; (3) a minimal note that history was dropped,
 * written without the model. Partial summaries are merged with the MUST PRESERVE list
 * and the identifiers found in the old turns; identifiers the summary lost are
 * appended verbatim.
 */
import { toClawboxError } from "../../errors/index.ts";
import { messageText } from "../../messages/index.ts";
import type { Provider } from "../../providers/index.ts";
import type { BranchMessage } from "../branch-messages.ts";
import { chunkPrompt, mergePrompt, SUMMARIZER_SYSTEM_PROMPT } from "./compaction-prompts.ts";
import { extractIdentifiers, missingIdentifiers } from "./identifiers.ts";
import {
  chunkTokenLimit,
  chunkUnits,
  groupUnits,
  oversizedPlaceholder,
  serializeMessage,
  type Unit,
} from "./plan-compaction.ts";

export interface SummarizeInput {
  provider: Provider;
  contextWindow: number;
  messages: readonly BranchMessage[];
  counts: readonly number[];
  focus?: string;
  signal?: AbortSignal;
  maxSummaryTokens?: number;
}

export interface SummaryResult {
  summary: string;
  level: 1 | 2 | 3;
  chunks: number;
  identifiers: string[];
  errors: string[];
}

async function callModel(input: SummarizeInput, prompt: string): Promise<string> {
  let final: string | undefined;
  for await (const event of input.provider.stream({
    systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
    messages: [{ role: "user", content: prompt, timestamp: Date.now() }],
    tools: [],
    maxTokens:
      input.maxSummaryTokens ??
      Math.max(256, Math.min(4096, Math.floor(input.contextWindow * 0.15))),
    temperature: 0.2,
    ...(input.signal ? { signal: input.signal } : {}),
  })) {
    if (event.type === "error") throw event.error;
    if (event.type === "done") final = messageText(event.message);
  }
  if (!final || final.trim() === "") throw new Error("the summarizer returned no text");
  return final.trim();
}

function render(units: readonly Unit[], oversizeLimit: number | undefined): string {
  const lines: string[] = [];
  for (const unit of units) {
    for (const item of unit.items) {
      const tokens =
        unit.items.length === 1 ? unit.tokens : Math.ceil(unit.tokens / unit.items.length);
      lines.push(
        oversizeLimit !== undefined && tokens > oversizeLimit
          ? oversizedPlaceholder(item.message, tokens)
          : serializeMessage(item.message),
      );
    }
  }
  return lines.join("\n");
}

async function summarizeLevel(
  input: SummarizeInput,
  identifiers: string[],
  level: 1 | 2,
): Promise<{ summary: string; chunks: number }> {
  const total = input.counts.reduce((a, b) => a + b, 0);
  const limit = chunkTokenLimit(input.contextWindow, input.messages.length, total);
  const units = groupUnits(input.messages, input.counts);
  const chunks = chunkUnits(units, limit);
  const oversize = level === 2 ? Math.floor(limit / 2) : undefined;
  if (chunks.length === 1) {
    const only = chunks[0] ?? [];
    return {
      summary: await callModel(
        input,
        chunkPrompt(render(only, oversize), 1, 1, identifiers, input.focus),
      ),
      chunks: 1,
    };
  }
  const partials: string[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const ids = extractIdentifiers(render(chunk, oversize));
    partials.push(
      await callModel(
        input,
        chunkPrompt(render(chunk, oversize), i + 1, chunks.length, ids, input.focus),
      ),
    );
  }
  return {
    summary: await callModel(input, mergePrompt(partials, identifiers, input.focus)),
    chunks: chunks.length,
  };
}

function minimalNote(input: SummarizeInput, _identifiers: readonly string[]): string {
  const first = input.messages[0]?.message.timestamp;
  const last = input.messages[input.messages.length - 1]?.message.timestamp;
  const span =
    first && last
      ? ` from ${new Date(first).toISOString()} to ${new Date(last).toISOString()}`
      : "";
  const lastUser = [...input.messages].reverse().find((m) => m.message.role === "user");
  const request = lastUser
    ? `\nLast user request before the cut: ${messageText(lastUser.message).slice(0, 500)}`
    : "";
  return `Earlier history (${input.messages.length} messages${span}) was dropped because it could not be summarized. Ask the user if something from it is needed.${request}`;
}

function withIdentifiers(summary: string, identifiers: readonly string[]): string {
  const missing = missingIdentifiers(summary, identifiers);
  if (missing.length === 0) return summary;
  return `${summary}\n\nIdentifiers from the summarized turns (verbatim):\n${missing.map((id) => `- ${id}`).join("\n")}`;
}

export async function summarizeHistory(input: SummarizeInput): Promise<SummaryResult> {
  const identifiers = extractIdentifiers(
    input.messages.map((m) => serializeMessage(m.message)).join("\n"),
  );
  const errors: string[] = [];
  for (const level of [1, 2] as const) {
    if (input.signal?.aborted) break;
    try {
      const { summary, chunks } = await summarizeLevel(input, identifiers, level);
      return { summary: withIdentifiers(summary, identifiers), level, chunks, identifiers, errors };
    } catch (error) {
      errors.push(`level ${level}: ${toClawboxError(error).message}`);
    }
  }
  return {
    summary: withIdentifiers(minimalNote(input, identifiers), identifiers),
    level: 3,
    chunks: 0,
    identifiers,
    errors,
  };
}
