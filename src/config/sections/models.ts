/**
 * Model providers and the fallback chain. `primary` names an entry of `providers`;
 * `fallbacks` are tried in order when it fails with a fallback-worthy error.
 */
import { availableParallelism } from "node:os";
import * as z from "zod";

/**
 * llama.cpp threads when not configured: one core left for the event loop and the OS,
 * at most 4 (a Pi 5 gets 3, a 2-core machine 1). llama.cpp's threads spin while they
 * wait, so oversubscribing a small or busy machine makes generation ~10-100x slower.
 */
export function defaultLlamaThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

const costPerMillion = z
  .object({
    input: z.number().min(0).default(0),
    output: z.number().min(0).default(0),
    cacheRead: z.number().min(0).default(0),
    cacheWrite: z.number().min(0).default(0),
  })
  .default({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export const localProvider = z.object({
  kind: z.literal("local"),
  /** Path of a GGUF file. */
  path: z.string().min(1).optional(),
  /** Context window to allocate; defaults to the model's trained context capped at 8192. */
  contextSize: z.number().int().min(256).max(262144).optional(),
  /** CPU threads for llama.cpp. Always explicit: the default oversubscribes small boards. */
  threads: z.number().int().min(1).max(64).default(defaultLlamaThreads),
  temperature: z.number().min(0).max(2).default(0.7),
  maxTokens: z.number().int().min(1).default(512),
  seed: z.number().int().optional(),
  /** Sessions that keep their own KV-cache sequence, LRU-evicted (default 2). */
  sessions: z.number().int().min(1).max(8).optional(),
  /** Reuse the KV cache across turns (default true; false re-evaluates every prompt). */
  kvReuse: z.boolean().optional(),
  /** "grammar" (default): tool calls via grammar-constrained JSON; "off": text only. */
  toolCalling: z.enum(["grammar", "off"]).optional(),
  /** Longest string in grammar-constrained tool arguments, in characters (default 256). */
  maxArgChars: z.number().int().min(8).max(1024).optional(),
  /**
   * llama.cpp flash attention (default false: on CPU it made stories260K 2-4x slower;
   * measure your model with `npm run bench -- local-speed` before turning it on).
   */
  flashAttention: z.boolean().optional(),
});

const authProfile = z.object({
  id: z.string().min(1),
  apiKey: z.string().min(1),
});

const remoteBase = {
  baseUrl: z.string().url(),
  model: z.string().min(1),
  /** Keys tried in order; a 401/403/429 puts one on cooldown and rotates to the next. */
  authProfiles: z.array(authProfile).default([]),
  contextWindow: z.number().int().min(1024).default(128000),
  maxTokens: z.number().int().min(1).default(4096),
  /** A request with no bytes received for this long fails with PROVIDER_TIMEOUT. */
  timeoutMs: z.number().int().min(100).default(120000),
  cost: costPerMillion,
  temperature: z.number().min(0).max(2).optional(),
  /** Extra HTTP headers (e.g. organization ids); not for keys. */
  headers: z.record(z.string(), z.string()).optional(),
  /**
   * Retries of the same request after an "overloaded" answer (Anthropic 529, OpenAI
   * 503), with a growing pause; the service is busy for every key, so keys are not rotated.
   * Default 2.
   */
  overloadRetries: z.number().int().min(0).max(5).optional(),
};

export const openaiProvider = z.object({
  kind: z.literal("openai"),
  ...remoteBase,
  /**
   * Server flavor: tool-schema dialect, thinking parameters, reasoning replay; "auto"
   * guesses from baseUrl (DashScope, DeepSeek, MiniMax, Ollama, llama-server).
   */
  flavor: z
    .enum(["auto", "openai", "qwen", "deepseek", "minimax", "ollama", "llama-server"])
    .optional(),
  /**
   * Name of the output-token limit: OpenAI's o-series and gpt-5 reject `max_tokens`.
   * Default: `max_completion_tokens` for api.openai.com and those models, else `max_tokens`.
   */
  maxTokensField: z.enum(["max_tokens", "max_completion_tokens"]).optional(),
});
export const anthropicProvider = z.object({ kind: z.literal("anthropic"), ...remoteBase });

export const providerConfig = z.discriminatedUnion("kind", [
  localProvider,
  openaiProvider,
  anthropicProvider,
]);

export const modelsSection = z
  .object({
    primary: z.string().min(1).default("local"),
    fallbacks: z.array(z.string().min(1)).default([]),
    /**
     * Keep a local box local: cloud providers are never called, not even as a fallback,
     * so the private context never leaves the board.
     */
    localOnly: z.boolean().default(false),
    providers: z.record(z.string().regex(/^[a-zA-Z0-9_-]+$/), providerConfig).default({
      local: { kind: "local", threads: defaultLlamaThreads(), temperature: 0.7, maxTokens: 512 },
    }),
  })
  .default({
    primary: "local",
    fallbacks: [],
    localOnly: false,
    providers: {
      local: { kind: "local", threads: defaultLlamaThreads(), temperature: 0.7, maxTokens: 512 },
    },
  });

export type ModelsConfig = z.infer<typeof modelsSection>;
export type ProviderConfig = z.infer<typeof providerConfig>;
export type LocalProviderConfig = z.infer<typeof localProvider>;
export type OpenAIProviderConfig = z.infer<typeof openaiProvider>;
export type AnthropicProviderConfig = z.infer<typeof anthropicProvider>;
