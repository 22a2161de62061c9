/**
 * The one interface every model provider implements (local llama.cpp, OpenAI-compatible,
 * Anthropic, the scripted fake). A stream never throws for model-side failures: it ends
 * with a `done` or `error` event carrying the final AssistantMessage (pi style:
 * `stopReason: "error" | "aborted"` plus `errorMessage`), and `error` also carries a
 * classified ClawboxError so the outer loop can decide to rotate, fall back or compact.
 */
import type { ClawboxError } from "../errors/index.ts";
import type { AssistantMessage, Message, ToolCall } from "../messages/index.ts";

/** A tool as the model sees it: name, description, JSON-Schema parameters. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high";

export interface ProviderRequest {
  /** Whole system prompt: stable prefix, then the dynamic suffix (may be empty). */
  systemPrompt: string;
  /** Char offset in `systemPrompt` where the dynamic part starts (cache boundary). */
  cacheBoundary?: number;
  messages: Message[];
  tools: ToolDefinition[];
  /** "auto" (default): the model may answer or call a tool; "required": it must call one. */
  toolChoice?: "auto" | "required";
  /** Session the request belongs to: local providers keep a KV cache per session. */
  sessionId?: string;
  maxTokens?: number;
  temperature?: number;
  /** Texts that end the reply where the model writes one (a client's `stop`; local models). */
  stop?: string[];
  thinkingLevel?: ThinkingLevel;
  signal?: AbortSignal;
}

export type ProviderEvent =
  | { type: "start"; model: string }
  | { type: "text_delta"; delta: string }
  | { type: "thinking_delta"; delta: string }
  | { type: "toolcall"; toolCall: ToolCall }
  | { type: "done"; message: AssistantMessage }
  | { type: "error"; message: AssistantMessage; error: ClawboxError };

/**
 * How a local model's prompt is marked up, as plain strings (special tokens written as
 * their text): what precedes the system prompt, what goes between turns, the reply header.
 */
export interface ChatTemplate {
  /** node-llama-cpp's wrapper name, e.g. "ChatML", "Llama 3", "Gemma", "Jinja". */
  name: string;
  /** "gguf": the file's own chat template; "model name": guessed; "fallback": ChatML. */
  source: "gguf" | "model name" | "fallback";
  start: string;
  systemToUser: string;
  userToAssistant: string;
  assistantToUser: string;
  userToUser: string;
  /** After the last message: the header of the reply to generate. */
  replyStart: string;
  /** Text that ends a reply when the model writes it out. */
  stops: string[];
}

export type ProviderKind = "local" | "openai" | "anthropic";

export interface Provider {
  /** Config id (key in `models.providers`). */
  readonly id: string;
  readonly kind: ProviderKind;
  /** Model name recorded on assistant messages. */
  readonly model: string;
  /** Context window in tokens (loads model metadata if needed). */
  contextWindow(): Promise<number>;
  /** Exact token count when the provider has a tokenizer at hand, else undefined. */
  countTokens?(text: string): Promise<number | undefined>;
  /** The chat template of a loaded local model (undefined until loaded, or for cloud models). */
  chatTemplate?(): Promise<ChatTemplate | undefined>;
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>;
  /** Loaded state for /health: "unloaded" | "loading" | "ready" | "error". */
  state?(): "unloaded" | "loading" | "ready" | "error";
  /** Counters since creation, for /health and benchmarks. Never contains secrets. */
  stats?(): ProviderStats;
  dispose?(): Promise<void>;
}

/** Token counts of one finished request. */
export interface RequestStats {
  /** Prompt tokens the model had to process (local: evaluated by llama.cpp). */
  inputTokens: number;
  /** Prompt tokens served from a cache (local: reused KV prefix). */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  durationMs: number;
  stopReason: AssistantMessage["stopReason"];
}

export interface ProviderStats {
  requests: number;
  errors: number;
  /** Sums over all requests. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  lastRequest?: RequestStats;
  lastError?: { code: string; message: string; at: number };
  /** Local provider: sessions holding a KV-cache sequence, and the bound. */
  sessions?: { active: number; max: number };
  /**
   * Local provider: KV-cache states saved on disk (count, bytes, the bound; loads, saves
   * and refused states since start), and what the last request took from them.
   */
  kvCache?: {
    entries: number;
    bytes: number;
    maxBytes: number;
    loads: number;
    saves: number;
    refused: number;
    lastRequest?: {
      prefixTokens: number;
      loadedTokens: number;
      loadMs: number;
      loadedFrom?: "prefix" | "own";
      prefixEvaluated: number;
      prefixEvalMs: number;
    };
  };
  /** Remote providers: auth profiles by id (never keys) and their cooldown end (epoch ms). */
  authProfiles?: { id: string; coolingDownUntil?: number }[];
}
