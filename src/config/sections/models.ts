/**
 * Model providers and the fallback chain. `primary` names an entry of `providers`;
 * `fallbacks` are tried in order when it fails with a fallback-worthy error.
 */
import { availableParallelism } from "node:os";
import { z } from "../../schema/index.ts";

/**
 * llama.cpp threads when not configured: one core left for the event loop and the OS,
 * at most 4 (a Pi 5 gets 3, a 2-core machine 1). llama.cpp's threads spin while they
 * wait, so oversubscribing a small or busy machine makes generation ~10-100x slower.
 */
export function defaultLlamaThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

const price = z._default(z.number().check(z.minimum(0)), 0);
const costPerMillion = z._default(
  z.object({ input: price, output: price, cacheRead: price, cacheWrite: price }),
  { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
);

const nonEmpty = z.string().check(z.minLength(1));
const temperature = z.number().check(z.minimum(0), z.maximum(2));

export const localProvider = z.object({
  kind: z.literal("local"),
  /** Path of a GGUF file. */
  path: z.optional(nonEmpty),
  /** Context window to allocate; defaults to the model's trained context capped at 8192. */
  contextSize: z.optional(z.number().check(z.int(), z.minimum(256), z.maximum(262144))),
  /** CPU threads for llama.cpp. Always explicit: the default oversubscribes small boards. */
  threads: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(64)), defaultLlamaThreads),
  temperature: z._default(temperature, 0.7),
  maxTokens: z._default(z.number().check(z.int(), z.minimum(1)), 512),
  seed: z.optional(z.number().check(z.int())),
  /** Sessions that keep their own KV-cache sequence, LRU-evicted (default 2). */
  sessions: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(8))),
  /** Reuse the KV cache across turns (default true; false re-evaluates every prompt). */
  kvReuse: z.optional(z.boolean()),
  /** "grammar" (default): tool calls via grammar-constrained JSON; "off": text only. */
  toolCalling: z.optional(z.enum(["grammar", "off"])),
  /** Longest string in grammar-constrained tool arguments, in characters (default 256). */
  maxArgChars: z.optional(z.number().check(z.int(), z.minimum(8), z.maximum(1024))),
  /**
   * llama.cpp flash attention (default false: on CPU it made stories260K 2-4x slower;
   * measure your model with `npm run bench -- local-speed` before turning it on).
   */
  flashAttention: z.optional(z.boolean()),
  /**
   * Disk, in MB, for saved KV-cache states under `<home>/cache/kv` (the evaluated system
   * prompt shared by every session, sessions that gave their sequence away); the least
   * recently used go first. 0 saves nothing. Default 2048 (see docs/PROVIDERS.md).
   */
  kvCacheDiskMB: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(1048576))),
});

const authProfile = z.object({
  id: nonEmpty,
  apiKey: nonEmpty,
});

const remoteBase = {
  baseUrl: z.url(),
  model: nonEmpty,
  /** Keys tried in order; a 401/403/429 puts one on cooldown and rotates to the next. */
  authProfiles: z._default(z.array(authProfile), []),
  contextWindow: z._default(z.number().check(z.int(), z.minimum(1024)), 128000),
  maxTokens: z._default(z.number().check(z.int(), z.minimum(1)), 4096),
  /** A request with no bytes received for this long fails with PROVIDER_TIMEOUT. */
  timeoutMs: z._default(z.number().check(z.int(), z.minimum(100)), 120000),
  cost: costPerMillion,
  temperature: z.optional(temperature),
  /** Extra HTTP headers (e.g. organization ids); not for keys. */
  headers: z.optional(z.record(z.string(), z.string())),
  /**
   * Retries of the same request after an "overloaded" answer (Anthropic 529, OpenAI
   * 503), with a growing pause; the service is busy for every key, so keys are not rotated.
   * Default 2.
   */
  overloadRetries: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(5))),
};

export const openaiProvider = z.object({
  kind: z.literal("openai"),
  ...remoteBase,
  /**
   * Server flavor: tool-schema dialect, thinking parameters, reasoning replay; "auto"
   * guesses from baseUrl (DashScope, DeepSeek, MiniMax, Ollama, llama-server).
   */
  flavor: z.optional(
    z.enum(["auto", "openai", "qwen", "deepseek", "minimax", "ollama", "llama-server"]),
  ),
  /**
   * Name of the output-token limit: OpenAI's o-series and gpt-5 reject `max_tokens`.
   * Default: `max_completion_tokens` for api.openai.com and those models, else `max_tokens`.
   */
  maxTokensField: z.optional(z.enum(["max_tokens", "max_completion_tokens"])),
});
export const anthropicProvider = z.object({ kind: z.literal("anthropic"), ...remoteBase });

export const providerConfig = z.discriminatedUnion("kind", [
  localProvider,
  openaiProvider,
  anthropicProvider,
]);

export const modelsSection = z._default(
  z.object({
    primary: z._default(nonEmpty, "local"),
    fallbacks: z._default(z.array(nonEmpty), []),
    /**
     * Keep a local box local: cloud providers are never called, not even as a fallback,
     * so the private context never leaves the board.
     */
    localOnly: z._default(z.boolean(), false),
    /**
     * Base URL `clawbox models pull` and the console fetch model files from instead of the
     * manifest's URLs: `<mirror>/<name>/<file>` (a LAN server, e.g. another box's models
     * folder), with the same size and sha256 checks.
     */
    mirror: z.optional(z.url()),
    providers: z._default(z.record(z.string().check(z.regex(/^[a-zA-Z0-9_-]+$/)), providerConfig), {
      local: { kind: "local", threads: defaultLlamaThreads(), temperature: 0.7, maxTokens: 512 },
    }),
  }),
  {
    primary: "local",
    fallbacks: [],
    localOnly: false,
    providers: {
      local: { kind: "local", threads: defaultLlamaThreads(), temperature: 0.7, maxTokens: 512 },
    },
  },
);

export type ModelsConfig = z.infer<typeof modelsSection>;
export type ProviderConfig = z.infer<typeof providerConfig>;
export type LocalProviderConfig = z.infer<typeof localProvider>;
export type OpenAIProviderConfig = z.infer<typeof openaiProvider>;
export type AnthropicProviderConfig = z.infer<typeof anthropicProvider>;
