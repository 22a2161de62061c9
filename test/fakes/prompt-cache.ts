/**
 * The documented prompt-cache semantics of the two cloud APIs, for fakes that report
 * what the real services would have served from their cache.
 *
 * - OpenAI (platform.openai.com, "Prompt caching"): automatic for prompts of 1,024
 *   tokens or more; a request reuses the longest prefix it shares with an earlier
 *   prompt, counted in steps of 128 tokens after the first 1,024
 *   (`usage.prompt_tokens_details.cached_tokens` is 0, 1024, 1152, 1280, …). The prefix
 *   is the tools, then the messages in order.
 * - Anthropic (docs.anthropic.com, "Prompt caching"): the prefix runs tools → system →
 *   messages; a block marked `cache_control` is a breakpoint. A request reads the cache
 *   at a breakpoint whose whole prefix (every block up to and including it) matches a
 *   prefix an earlier request wrote, and writes the prefixes at its breakpoints beyond
 *   that read (`cache_read_input_tokens`, `cache_creation_input_tokens`; the rest is
 *   `input_tokens`). Prefixes under 1,024 tokens are not cached. The real API also
 *   looks back up to 20 blocks before a breakpoint; this fake does not, so a hit here
 *   needs a breakpoint exactly where an earlier request put one.
 *
 * Tokens are approximated the same way for both (a word with its leading space, up to
 * three digits, one CJK character or one other character is a token): the figures are
 * shares and counts of that unit, not billing-exact.
 */
import { createHash } from "node:crypto";

const TOKEN = / ?[A-Za-z]+| ?\d{1,3}|\s+|[^\sA-Za-z\d]/gu;

export function approxTokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] =>
  Array.isArray(value) ? (value.filter((v) => typeof v === "object" && v !== null) as Json[]) : [];
/** JSON of a block as the model sees it: a cache marker is not content. */
const contentJson = (value: unknown): string =>
  JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v));

export interface OpenAICacheUsage {
  prompt: number;
  cached: number;
}

export const OPENAI_MIN_CACHED = 1024;
export const OPENAI_CACHE_STEP = 128;

/** OpenAI's automatic prefix cache over the prompts it has seen. */
export class OpenAIPromptCache {
  private readonly seen: string[][] = [];

  /** Usage for a chat-completions body, then remembers its prompt. */
  serve(body: Json): OpenAICacheUsage {
    const tokens = [
      ...list(body.tools).flatMap((tool) => approxTokens(`tool ${contentJson(tool)}\n`)),
      ...list(body.messages).flatMap((message) =>
        approxTokens(
          `<|${String(message.role)}|>${contentJson({ ...message, role: undefined })}\n`,
        ),
      ),
    ];
    let common = 0;
    for (const earlier of this.seen) common = Math.max(common, commonPrefix(earlier, tokens));
    this.seen.push(tokens);
    const cached =
      common < OPENAI_MIN_CACHED
        ? 0
        : OPENAI_MIN_CACHED +
          Math.floor((common - OPENAI_MIN_CACHED) / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP;
    return { prompt: tokens.length, cached };
  }
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

export interface AnthropicCacheUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** All three together: the request's whole input. */
  total: number;
}

export const ANTHROPIC_MIN_CACHED = 1024;

/** Anthropic's breakpoint cache over the prefixes earlier requests wrote. */
export class AnthropicPromptCache {
  private readonly written = new Map<string, number>();

  serve(body: Json): AnthropicCacheUsage {
    const blocks: { json: string; breakpoint: boolean }[] = [];
    const add = (block: Json, prefix = ""): void => {
      blocks.push({ json: prefix + contentJson(block), breakpoint: block.cache_control != null });
    };
    for (const tool of list(body.tools)) add(tool, "tool ");
    const system = body.system;
    if (typeof system === "string") add({ type: "text", text: system }, "system ");
    for (const block of list(system)) add(block, "system ");
    for (const message of list(body.messages)) {
      const content = message.content;
      const role = `<|${String(message.role)}|>`;
      if (typeof content === "string") add({ type: "text", text: content }, role);
      else for (const [i, block] of list(content).entries()) add(block, i === 0 ? role : "");
    }
    const hash = createHash("sha256");
    let total = 0;
    const points: { key: string; tokens: number }[] = [];
    for (const block of blocks) {
      hash.update(block.json);
      total += approxTokens(block.json).length;
      if (block.breakpoint) points.push({ key: hash.copy().digest("hex"), tokens: total });
    }
    let read = 0;
    for (const point of points) if (this.written.has(point.key)) read = point.tokens;
    let wrote = read;
    for (const point of points) {
      if (point.tokens <= read || point.tokens < ANTHROPIC_MIN_CACHED) continue;
      this.written.set(point.key, point.tokens);
      wrote = point.tokens;
    }
    return { input: total - wrote, cacheRead: read, cacheWrite: wrote - read, total };
  }
}
