/**
 * The context report: what the next call would send (files with raw/injected chars and
 * destination, skills, tools, history, budget plan with its degradation steps, prefix
 * hash). Built from the pieces `assemble` already computed, so reporting costs nothing
 * extra and always matches what the model sees.
 */
import { createHash } from "node:crypto";
import type { SessionRow } from "../store/index.ts";
import { readWorkspaceState } from "../workspace/index.ts";
import type { assembleHistory } from "./assemble-history.ts";
import type { AssembleInput } from "./context-engine.ts";
import type { ContextReport } from "./context-report.ts";
import type { preparePrompt } from "./prepare-prompt.ts";
import type { ModelKind, RunKind } from "./run-kinds.ts";

export interface ContextReportParts {
  session: SessionRow | undefined;
  modelKind: ModelKind;
  runKind: RunKind;
  model: { model: string };
  workspacePath: string;
  prepared: Awaited<ReturnType<typeof preparePrompt>>;
  tools: AssembleInput["tools"];
  history: Awaited<ReturnType<typeof assembleHistory>>;
  /** Messages sent, the pending user message included. */
  messageCount: number;
  pendingTokens: number;
  historyBudget: number;
  /** System prompt, tools and chat-template overhead. */
  fixedTokens: number;
  fittedSteps: string[];
  exactTokens: boolean;
  /** BOOTSTRAP.md is in the workspace (whether or not this run's prompt reads it). */
  bootstrapOnDisk: boolean;
}

export function buildContextReport(input: ContextReportParts): ContextReport {
  const state = readWorkspaceState(input.workspacePath);
  const bootstrapPresent = input.bootstrapOnDisk;
  const report: ContextReport = {
    sessionId: input.session?.sessionId ?? null,
    sessionKey: input.session?.sessionKey ?? null,
    modelKind: input.modelKind,
    runKind: input.runKind,
    promptMode: input.prepared.mode,
    model: input.model.model,
    workspace: {
      path: input.workspacePath,
      reachable: input.prepared.workspace.reachable,
      ...(input.prepared.workspace.error ? { error: input.prepared.workspace.error } : {}),
    },
    bootstrapStatus: bootstrapPresent ? "pending" : state.bootstrapSeededAt ? "done" : "absent",
    files: input.prepared.files,
    memory: input.prepared.memory
      ? {
          name: input.prepared.memory.name,
          rawChars: input.prepared.memory.rawChars,
          injectedChars: input.prepared.memory.injectedChars,
          truncated: input.prepared.memory.truncated,
        }
      : null,
    skills: {
      mode: input.prepared.skills.mode,
      listed: input.prepared.skills.listed.map((s) => ({
        name: s.name,
        path: s.path,
        source:
          input.prepared.skills.set.available.find((a) => a.name === s.name)?.source ?? "unknown",
      })),
      hidden: input.prepared.skills.set.hidden.map((h) => ({
        name: h.name,
        source: h.source,
        reason: h.reason,
      })),
      omitted: input.prepared.skills.omitted,
      tokens: input.prepared.skills.tokens,
    },
    tools: {
      offered: input.tools.length,
      included: input.prepared.tools.kept.map((t, i) => ({
        name: t.name,
        tokens: input.prepared.tools.tokens[i] ?? 0,
      })),
      dropped: input.prepared.tools.dropped,
      tokens: input.prepared.toolTokens,
    },
    history: {
      entries: input.history.entries,
      messages: input.messageCount,
      tokens: input.history.tokens + input.pendingTokens,
      fromCompaction: input.history.fromCompaction,
      droppedForBudget: input.history.droppedForBudget,
      pruning: input.history.pruning,
      repair: input.history.repair,
    },
    budget: {
      ...input.prepared.caps,
      system: input.prepared.systemTokens,
      bootstrapTokens: input.prepared.bootstrapTokens,
      skillsTokens: input.prepared.skills.tokens,
      toolTokens: input.prepared.toolTokens,
      templateTokens: input.fixedTokens - input.prepared.systemTokens - input.prepared.toolTokens,
      history: input.historyBudget + input.pendingTokens,
      historyTokens: input.history.tokens + input.pendingTokens,
      steps: [
        ...input.prepared.steps,
        ...input.fittedSteps,
        ...(input.history.droppedForBudget > 0
          ? [`left out ${input.history.droppedForBudget} old messages`]
          : []),
      ],
      exactTokens: input.exactTokens,
    },
    prefixHash: createHash("sha256")
      .update(input.prepared.system.prefix)
      .digest("hex")
      .slice(0, 16),
    systemPrompt: {
      chars: input.prepared.system.text.length,
      cacheBoundary: input.prepared.system.cacheBoundary,
      sections: input.prepared.system.sections,
    },
  };
  return report;
}
