/**
 * One compaction of a session (SPEC §6): decide by trigger and mode, run the memory
 * flush turn once per compaction cycle, summarize the older part of the live history
 * (recent turns stay whole, tool pairs never split), store a compaction entry and bump
 * the session's compactionCount. The full transcript stays in the store. Emits
 * compaction_start/compaction_end; never throws for summarizer failures (level 3).
 */
import type { ContextConfig } from "../../config/index.ts";
import type { Store } from "../../store/index.ts";
import type { Logger } from "../../system/index.ts";
import { type BranchMessage, branchMessages } from "../branch-messages.ts";
import { budgetCaps } from "../budget-planner.ts";
import type { CompactInput, CompactionEvent, CompactResult } from "../context-engine.ts";
import { repairTranscript } from "../repair-transcript.ts";
import { findCutIndex } from "./plan-compaction.ts";
import { summarizeHistory } from "./summarize-history.ts";

export interface CompactDeps {
  store: Store;
  config: ContextConfig;
  logger?: Logger;
  countMessage(sessionId: string, item: BranchMessage): Promise<number>;
  /** Tokens of a text as the compacting model counts them. */
  countText(text: string): Promise<number>;
  /** Template tokens around a one-message prompt for this model (0 for cloud models). */
  overheadTokens: number;
  /** Tokens of the fixed prompt parts (system, tools) from the last assembly, if known. */
  fixedTokens(sessionId: string): number;
}

function emit(input: CompactInput, event: CompactionEvent, logger?: Logger): void {
  try {
    input.onEvent?.(event);
  } catch (error) {
    logger?.warn("compaction event handler threw", { error: String(error) });
  }
}

function shouldCompact(
  reason: CompactInput["reason"],
  config: ContextConfig,
  used: number,
  window: number,
  available: number,
): string | undefined {
  if (reason === "manual" || reason === "overflow") return undefined;
  const mode = config.compaction.mode;
  if (mode === "off") return "compaction mode is off";
  if (reason === "timeout") return used > window * 0.65 ? undefined : "context usage below 65%";
  if (mode === "aggressive")
    return used > window * config.compaction.aggressiveRatio
      ? undefined
      : "below the aggressive threshold";
  return used > available * 0.85 ? undefined : "below the safeguard threshold";
}

async function liveMessages(deps: CompactDeps, sessionId: string) {
  const entries = deps.store.transcript.branch(sessionId, { fromLastCompaction: true });
  const { messages } = branchMessages(entries);
  const repaired = repairTranscript(messages).messages;
  const counts: number[] = [];
  for (const item of repaired) counts.push(await deps.countMessage(sessionId, item));
  return { messages: repaired, counts };
}

export async function compactSession(
  deps: CompactDeps,
  input: CompactInput,
): Promise<CompactResult> {
  const sessionId = input.session.sessionId;
  const window = await input.provider.contextWindow();
  const caps = budgetCaps(window, deps.config.reserveTokens);
  let live = await liveMessages(deps, sessionId);
  const historyTokens = live.counts.reduce((a, b) => a + b, 0);
  const tokensBefore = historyTokens + deps.fixedTokens(sessionId);
  const skip = shouldCompact(
    input.reason,
    deps.config,
    tokensBefore,
    caps.contextWindow,
    caps.available,
  );
  if (skip) return { compacted: false, tokensBefore, reason: skip };
  const keepRecent = Math.min(
    deps.config.compaction.keepRecentTokens,
    Math.floor(caps.contextWindow * (deps.config.compaction.mode === "aggressive" ? 0.1 : 0.25)),
  );
  if (findCutIndex(live.messages, live.counts, keepRecent) === 0) {
    return { compacted: false, tokensBefore, reason: "nothing old enough to summarize" };
  }
  emit(
    input,
    { type: "compaction_start", sessionId, reason: input.reason, tokensBefore },
    deps.logger,
  );

  const session = deps.store.sessions.require(sessionId);
  if (
    input.memoryFlush &&
    deps.config.compaction.memoryFlush &&
    session.memoryFlush?.lastFlushCompactionCount !== session.compactionCount
  ) {
    deps.store.sessions.update(sessionId, {
      memoryFlush: {
        ...session.memoryFlush,
        lastFlushCompactionCount: session.compactionCount,
        lastFlushAt: Date.now(),
      },
    });
    try {
      await input.memoryFlush();
    } catch (error) {
      deps.logger?.warn("memory flush before compaction failed", {
        sessionId,
        error: String(error),
      });
    }
    live = await liveMessages(deps, sessionId);
  }

  const cut = findCutIndex(live.messages, live.counts, keepRecent);
  const firstKept = live.messages[cut];
  if (cut === 0 || !firstKept) {
    emit(
      input,
      { type: "compaction_end", sessionId, reason: input.reason, compacted: false, tokensBefore },
      deps.logger,
    );
    return { compacted: false, tokensBefore, reason: "nothing old enough to summarize" };
  }
  const old = live.messages.slice(0, cut);
  const oldCounts = live.counts.slice(0, cut);
  const result = await summarizeHistory({
    provider: input.provider,
    contextWindow: caps.contextWindow,
    messages: old,
    counts: oldCounts,
    countText: deps.countText,
    overheadTokens: deps.overheadTokens,
    ...(input.instructions ? { focus: input.instructions } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  if (result.errors.length > 0)
    deps.logger?.warn("compaction fell back", {
      sessionId,
      level: result.level,
      errors: result.errors,
    });
  const keptTokens = live.counts.slice(cut).reduce((a, b) => a + b, 0);
  const summaryTokens = await deps.countMessage(sessionId, {
    entryId: "summary-probe",
    message: { role: "user", content: result.summary, timestamp: 0 },
  });
  const tokensAfter = keptTokens + summaryTokens + deps.fixedTokens(sessionId);
  const entry = deps.store.transcript.appendCompaction(sessionId, {
    summary: result.summary,
    firstKeptEntryId: firstKept.entryId,
    tokensBefore,
    details: {
      reason: input.reason,
      level: result.level,
      chunks: result.chunks,
      tokensAfter,
      summarizedMessages: old.length,
      errors: result.errors,
    },
  });
  emit(
    input,
    {
      type: "compaction_end",
      sessionId,
      reason: input.reason,
      compacted: true,
      tokensBefore,
      tokensAfter,
      level: result.level,
      entryId: entry.id,
    },
    deps.logger,
  );
  return { compacted: true, tokensBefore, tokensAfter, entryId: entry.id, level: result.level };
}
