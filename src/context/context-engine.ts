/**
 * The contract between the agent loop and context management (SPEC §6). The loop never
 * builds prompts itself: it ingests new entries, asks for an assembled context within a
 * token budget, and asks for compaction. `maintain` may rewrite the transcript only
 * through the store (append-only entries), never by mutating stored entries.
 * Another engine can be selected by `context.engine` in the config.
 */
import type { Message, TranscriptEntry, UserMessage } from "../messages/index.ts";
import type { TurnFacts } from "../prompt/index.ts";
import type { Provider, ToolDefinition } from "../providers/index.ts";
import type { SessionRow, Store } from "../store/index.ts";
import type { ContextReport } from "./context-report.ts";
import type { ModelKind, RunKind } from "./run-kinds.ts";

import type { TokenSource } from "./token-counter.ts";

/** Per-turn facts (prompt/dynamic-context.ts): they lead the new user message, never the system prompt or tools. */
export type { TurnFacts as DynamicContext } from "../prompt/index.ts";

export interface AssembleInput {
  session: SessionRow;
  provider: Provider;
  modelKind: ModelKind;
  runKind: RunKind;
  tools: ToolDefinition[];
  dynamic: TurnFacts;
  /**
   * False keeps the owner's private files (MEMORY.md, USER.md) out of the prompt: for a
   * sender who is not an owner, and in group chats (SPEC §9a). Default true.
   */
  privateFiles?: boolean;
  /** Override of the prompt mode (default: full for interactive, minimal otherwise). */
  promptMode?: "full" | "minimal" | "none";
  /** Extra stable text for the system prompt (placed above the cache boundary). */
  systemPromptAddition?: string;
}

export interface AssembledContext {
  systemPrompt: string;
  /** Char offset of a per-turn suffix in `systemPrompt` (the default engine has none). */
  cacheBoundary: number;
  /** Messages to send, already pruned and repaired; the last one is the user turn. */
  messages: Message[];
  /** Tools that fit the budget (may be fewer than offered). */
  tools: ToolDefinition[];
  /** Report for /context and logs. */
  report?: ContextReport;
  /**
   * The pending user message exactly as sent (the per-turn facts stamp, a
   * bootstrap-pending block on a first run). Store this one, not the raw message, so
   * later turns replay the same bytes and every provider's prefix cache stays valid.
   */
  pendingMessage?: UserMessage;
  /** History did not fit even after pruning: older messages were left out; compact soon. */
  compactionAdvised?: boolean;
}

export type CompactionEvent =
  | {
      type: "compaction_start";
      sessionId: string;
      reason: CompactInput["reason"];
      tokensBefore: number;
    }
  | {
      type: "compaction_end";
      sessionId: string;
      reason: CompactInput["reason"];
      compacted: boolean;
      tokensBefore: number;
      tokensAfter?: number;
      /** 1 full summary, 2 with oversized messages replaced, 3 minimal note. */
      level?: 1 | 2 | 3;
      entryId?: string;
      error?: string;
    };

export interface CompactInput {
  session: SessionRow;
  provider: Provider;
  reason: "threshold" | "overflow" | "manual" | "timeout";
  signal?: AbortSignal;
  /**
   * The pre-compaction memory flush: the agent loop runs one silent turn that lets the
   * model write durable notes to memory/YYYY-MM-DD.md (reply NO_REPLY when nothing to
   * store). Called at most once per compaction cycle, before summarizing. May throw;
   * compaction continues either way.
   */
  memoryFlush?: () => Promise<void>;
  /** compaction_start / compaction_end events. Must not throw. */
  onEvent?: (event: CompactionEvent) => void;
  /** Extra focus for the summary (e.g. from "/compact keep the shopping list"). */
  instructions?: string;
}

export interface CompactResult {
  compacted: boolean;
  tokensBefore?: number;
  tokensAfter?: number;
  entryId?: string;
  reason?: string;
  /** 1 full summary, 2 with oversized messages replaced, 3 minimal note. */
  level?: 1 | 2 | 3;
}

export interface ContextReportInput {
  /** No session: the report shows what a fresh session would get. */
  session?: SessionRow;
  modelKind: ModelKind;
  runKind?: RunKind;
  /** Provider to measure with; else `model` describes the model. */
  provider?: Provider;
  model?: { providerId: string; model: string; contextWindow: number };
  /** Without `provider`: the model's tokenizer to count with (else estimates). */
  tokens?: TokenSource;
  tools?: ToolDefinition[];
  /** False: report the prompt of a stranger or a group chat (no MEMORY.md, USER.md). */
  privateFiles?: boolean;
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
  /** What the next turn would see (for `clawbox context` and `/context`). */
  report?(input: ContextReportInput): Promise<ContextReport>;
  /**
   * Drops what the engine keeps per session only to speed up the next turn (token
   * counts) for sessions not used for `idleMs`: the box calls it when it has been idle
   * for a while. Safe at any time; the next turn of such a session redoes the work.
   */
  trim?(idleMs: number): void;
  /** Stops watchers. Safe to call twice. */
  dispose?(): void;
}
