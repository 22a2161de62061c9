/**
 * The history part of a turn: the active branch from the latest compaction onward
 * (cost follows the live context, not the total history), repaired, pruned in memory
 * when it pays, and fitted to the history budget by leaving out the oldest messages
 * whole turns first, the summary only when nothing else is left) — the turn always
 * gets a valid prompt, and the caller is told to compact.
 */
import {
  type Message,
  messageText,
  type TranscriptEntry,
  type UserMessage,
} from "../messages/index.ts";
import type { SessionRow, Store } from "../store/index.ts";
import { type BranchMessage, branchMessages } from "./branch-messages.ts";
import { type PruneOptions, type PruneReport, pruneToolResults } from "./prune-tool-results.ts";
import { type RepairReport, repairTranscript } from "./repair-transcript.ts";
import type { ModelKind } from "./run-kinds.ts";

export interface HistoryInput {
  store: Store;
  session: SessionRow | undefined;
  modelKind: ModelKind;
  /** Raw pending user message (may already be stored as the branch's last entry). */
  pending?: UserMessage;
  budgetTokens: number;
  pruning: Omit<PruneOptions, "budget" | "overBudget"> & { enabled: boolean };
  countMessage(item: BranchMessage): Promise<number>;
  /** The branch, when the caller already read it. */
  entries?: TranscriptEntry[];
}

export interface AssembledHistory {
  messages: BranchMessage[];
  entries: number;
  tokens: number;
  fromCompaction: string | null;
  droppedForBudget: number;
  pruning: PruneReport | null;
  repair: RepairReport;
  /** No model has seen a message of this session yet. */
  firstRun: boolean;
  compactionAdvised: boolean;
}

function samePending(stored: Message | undefined, pending: UserMessage | undefined): boolean {
  return (
    stored !== undefined &&
    pending !== undefined &&
    stored.role === "user" &&
    stored.timestamp === pending.timestamp &&
    messageText(stored) === messageText(pending)
  );
}

async function total(
  items: readonly BranchMessage[],
  count: HistoryInput["countMessage"],
): Promise<number> {
  let sum = 0;
  for (const item of items) sum += await count(item);
  return sum;
}

/** The active branch from the latest compaction onward (empty for no session). */
export function readBranch(store: Store, session: SessionRow | undefined): TranscriptEntry[] {
  return session?.leafId
    ? store.transcript.branch(session.sessionId, { fromLastCompaction: true })
    : [];
}

/** True when no model has seen a message of this branch yet (the pending one aside). */
export function isFirstRun(
  entries: readonly TranscriptEntry[],
  pending: UserMessage | undefined,
): boolean {
  const { messages, compaction } = branchMessages(entries);
  if (compaction) return false;
  if (messages.length === 1 && samePending(messages[0]?.message, pending)) return true;
  return messages.length === 0;
}

export async function assembleHistory(input: HistoryInput): Promise<AssembledHistory> {
  const entries = input.entries ?? readBranch(input.store, input.session);
  const { messages: raw, compaction } = branchMessages(entries);
  if (samePending(raw[raw.length - 1]?.message, input.pending)) raw.pop();
  const firstRun = !compaction && raw.length === 0;
  const repaired = repairTranscript(raw);
  let messages = repaired.messages;
  let tokens = await total(messages, input.countMessage);
  let pruning: PruneReport | null = null;
  if (input.pruning.enabled) {
    const overBudget = tokens > input.budgetTokens;
    const result = await pruneToolResults(messages, {
      ...input.pruning,
      overBudget,
      budget: { tokens: input.budgetTokens, countItem: input.countMessage },
    });
    pruning = result.report;
    if (result.report.pruned) {
      messages = result.messages;
      tokens = await total(messages, input.countMessage);
    }
  }
  let droppedForBudget = 0;
  if (tokens > input.budgetTokens) {
    const head = messages[0]?.entryId.startsWith("compaction:") ? 1 : 0;
    const counts = await Promise.all(messages.map((m) => input.countMessage(m)));
    // With a pending message every old turn may go; on a later call of the same run
    // (no pending message) the current turn, from its user message on, stays.
    let lastUser = messages.length;
    if (!input.pending) {
      lastUser = head;
      messages.forEach((m, i) => {
        if (m.message.role === "user") lastUser = Math.max(lastUser, i);
      });
    }
    let cut = head;
    while (tokens > input.budgetTokens && cut < lastUser) {
      tokens -= counts[cut] ?? 0;
      cut += 1;
    }
    // Start the kept part at a user message so no tool result loses its call.
    while (cut < messages.length && messages[cut]?.message.role !== "user") {
      tokens -= counts[cut] ?? 0;
      cut += 1;
    }
    droppedForBudget = cut - head;
    let kept = messages.slice(0, head);
    // Last resort on a tiny window: the summary itself does not fit next to the turn.
    if (head > 0 && tokens > input.budgetTokens) {
      tokens -= counts[0] ?? 0;
      droppedForBudget += 1;
      kept = [];
    }
    messages = [...kept, ...messages.slice(cut)];
  }
  return {
    messages,
    entries: entries.length,
    tokens,
    fromCompaction: compaction?.id ?? null,
    droppedForBudget,
    pruning,
    repair: repaired.report,
    firstRun,
    compactionAdvised: droppedForBudget > 0,
  };
}
