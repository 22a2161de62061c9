/**
 * The contract between the agent loop and context management (SPEC §6). The loop never
 * builds prompts itself: it ingests new entries, asks for an assembled context within a
 * token budget, and asks for compaction. `maintain` may rewrite the transcript only
 * through the store (append-only entries), never by mutating stored entries.
 * Another engine can be selected by `context.engine` in the config.
 */
import type { Message, TranscriptEntry, UserMessage } from "../messages/index.ts";
import type { Provider, ToolDefinition } from "../providers/index.ts";
import type { SessionRow, Store } from "../store/index.ts";

export type RunKind = "interactive" | "subagent" | "cron" | "heartbeat";
export type ModelKind = "local" | "cloud";

/** Per-turn facts that must stay below the cache boundary (or in the user message). */
export interface DynamicContext {
  channel: string;
  senderId?: string;
  senderName?: string;
  chatType: "direct" | "group" | "system";
  groupId?: string;
  messageId?: string;
  replyTo?: string;
  /** ms since epoch */
  now: number;
  timezone?: string;
}

export interface AssembleInput {
  session: SessionRow;
  provider: Provider;
  modelKind: ModelKind;
  runKind: RunKind;
  tools: ToolDefinition[];
  dynamic: DynamicContext;
}

export interface AssembledContext {
  systemPrompt: string;
  /** Char offset of the dynamic suffix in `systemPrompt`. */
  cacheBoundary: number;
  /** Messages to send, already pruned and repaired; the last one is the user turn. */
  messages: Message[];
  /** Tools that fit the budget (may be fewer than offered). */
  tools: ToolDefinition[];
  /** Free-form report for /context and logs. */
  report?: unknown;
}

export interface CompactInput {
  session: SessionRow;
  provider: Provider;
  reason: "threshold" | "overflow" | "manual" | "timeout";
  signal?: AbortSignal;
}

export interface CompactResult {
  compacted: boolean;
  tokensBefore?: number;
  tokensAfter?: number;
  entryId?: string;
  reason?: string;
}

export interface ContextEngine {
  readonly id: string;
  /** True when the engine decides itself when to compact (the loop then never asks). */
  readonly ownsCompaction: boolean;
  /** Called after entries were appended to the store (user, assistant, tool results). */
  ingest(sessionId: string, entries: TranscriptEntry[]): Promise<void>;
  /** Builds what the model sees for the next call. `pending` is the new user message. */
  assemble(input: AssembleInput, pending?: UserMessage): Promise<AssembledContext>;
  compact(input: CompactInput): Promise<CompactResult>;
  /** Safe transcript upkeep through the store (e.g. repairs recorded as new entries). */
  maintain(sessionId: string, store: Store): Promise<void>;
}
