/**
 * Summarizes older history with the configured model, in three levels so a compaction
 * never fails the turn: (1) every message, chunked; (2) the same with oversized
 * messages replaced by placeholders; (3) a minimal note that history was dropped,
 * written without the model. Partial summaries are merged with the MUST PRESERVE list
 * and the identifiers found in the old turns; identifiers the summary lost are
 * appended verbatim.
 *
 * Every prompt is sized from the real window before it is sent (window − the summary's
 * tokens − template overhead − instructions): chunks are cut to fit, the identifier
 * list is left out of a prompt it would overflow (the identifiers are appended to the
 * summary afterwards anyway), partial summaries are merged in groups that fit, and a
 * level whose prompt cannot fit is skipped without calling the model. On a 2k-token
 * local window a failed call costs a full evaluation, seconds to minutes on a Pi.
 */
import { ClawboxError, toClawboxError } from "../../errors/index.ts";
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
  /** Tokens of `text` as the summarizing model counts them. */
  countText(text: string): Promise<number>;
  /** Tokens the model's chat template adds around one system prompt and one message. */
  overheadTokens: number;
}

export interface SummaryResult {
  summary: string;
  level: 1 | 2 | 3;
  chunks: number;
  identifiers: string[];
  errors: string[];
}

function summaryTokens(input: SummarizeInput): number {
  return (
    input.maxSummaryTokens ??
    Math.min(
      Math.floor(input.contextWindow * 0.25),
      Math.max(256, Math.min(4096, Math.floor(input.contextWindow * 0.15))),
    )
  );
}

/** Tokens left for a summarizer prompt: window − summary − system prompt − template. */
async function promptRoom(input: SummarizeInput): Promise<number> {
  const system = await input.countText(SUMMARIZER_SYSTEM_PROMPT);
  return input.contextWindow - summaryTokens(input) - system - input.overheadTokens;
}

/**
 * The first of `prompts` (most complete first) that fits `room`, or an error naming the
 * sizes; no model call is made for a prompt that cannot fit.
 */
async function firstFitting(input: SummarizeInput, room: number, prompts: string[]) {
  let smallest = Number.POSITIVE_INFINITY;
  for (const prompt of prompts) {
    const tokens = await input.countText(prompt);
    if (tokens <= room) return prompt;
    smallest = Math.min(smallest, tokens);
  }
  throw new ClawboxError(
    "CONTEXT_OVERFLOW",
    `a summarizer prompt of ${smallest} tokens does not fit the ${input.contextWindow}-token window (room ${room}); not sent`,
  );
}

/** One summarizer request; its text, or an error when the model answered none. */
async function summarizeOnce(input: SummarizeInput, prompt: string): Promise<string> {
  let final: string | undefined;
  for await (const event of input.provider.stream({
    systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
    messages: [{ role: "user", content: prompt, timestamp: Date.now() }],
    tools: [],
    maxTokens: summaryTokens(input),
    temperature: 0.2,
    ...(input.signal ? { signal: input.signal } : {}),
  })) {
    if (event.type === "error") throw event.error;
    if (event.type === "done") final = messageText(event.message);
  }
  if (!final || final.trim() === "")
    throw new ClawboxError("PROVIDER_BAD_RESPONSE", "the summarizer returned no text");
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
  const room = await promptRoom(input);
  const instructions = await input.countText(chunkPrompt("", 9, 9, [], input.focus));
  // Serialized messages run a little longer than their counted tokens: keep 10% spare.
  const limit = Math.min(
    chunkTokenLimit(input.contextWindow, input.messages.length, total),
    Math.floor((room - instructions) / 1.1),
  );
  if (limit <= 0) {
    throw new ClawboxError(
      "CONTEXT_OVERFLOW",
      `the ${input.contextWindow}-token window leaves no room for history`,
    );
  }
  const units = groupUnits(input.messages, input.counts);
  const oversize = level === 2 ? Math.floor(limit / 2) : undefined;
  const biggest = Math.max(...units.map((unit) => unit.tokens));
  if (level === 1 && biggest > limit) {
    throw new ClawboxError(
      "CONTEXT_OVERFLOW",
      `a message of ${biggest} tokens is bigger than a summary chunk (${limit}); not sent`,
    );
  }
  const chunks = chunkUnits(units, limit);
  const prompt = (chunk: Unit[], part: number, ids: readonly string[]) =>
    chunkPrompt(render(chunk, oversize), part, chunks.length, ids, input.focus);
  if (chunks.length === 1) {
    const only = chunks[0] ?? [];
    const text = await firstFitting(input, room, [
      prompt(only, 1, identifiers),
      prompt(only, 1, []),
    ]);
    return { summary: await summarizeOnce(input, text), chunks: 1 };
  }
  const partials: string[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const ids = extractIdentifiers(render(chunk, oversize));
    const text = await firstFitting(input, room, [
      prompt(chunk, i + 1, ids),
      prompt(chunk, i + 1, []),
    ]);
    partials.push(await summarizeOnce(input, text));
  }
  return {
    summary: await mergePartials(input, room, partials, identifiers),
    chunks: chunks.length,
  };
}

/** Merges partial summaries in groups whose prompt fits, until one summary is left. */
async function mergePartials(
  input: SummarizeInput,
  room: number,
  partials: string[],
  identifiers: readonly string[],
): Promise<string> {
  let level = partials;
  const fits = async (group: string[]) =>
    (await input.countText(mergePrompt(group, [], input.focus))) <= room;
  while (level.length > 1) {
    const next: string[] = [];
    let merged = false;
    for (let start = 0; start < level.length; ) {
      let end = start + 1;
      while (end < level.length && (await fits(level.slice(start, end + 1)))) end += 1;
      const group = level.slice(start, end);
      if (group.length === 1) {
        next.push(group[0] ?? "");
      } else {
        const text = await firstFitting(input, room, [
          mergePrompt(group, identifiers, input.focus),
          mergePrompt(group, [], input.focus),
        ]);
        next.push(await summarizeOnce(input, text));
        merged = true;
      }
      start = end;
    }
    if (!merged)
      throw new ClawboxError(
        "CONTEXT_OVERFLOW",
        "partial summaries too big to merge in this window; not sent",
      );
    level = next;
  }
  return level[0] ?? "";
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
