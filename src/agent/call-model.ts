/**
 * The resilient outer loop around one model call (SPEC §7): walks the fallback chain
 * (config `models.primary`, then `models.fallbacks`), and per model compacts and
 * retries on overflow (≤ 3), compacts and retries on a timeout when the context is
 * over 65% full (≤ 2), and steps the thinking level down when a model rejects it.
 * Auth-profile rotation happens inside the providers. The result is always an
 * assistant message; on final failure it carries `stopReason: "error"`.
 */
import type { ContextConfig, ModelsConfig } from "../config/index.ts";
import {
  type AssembledContext,
  type ContextEngine,
  type DynamicContext,
  estimatePromptTokens,
  type RunKind,
} from "../context/index.ts";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { type AssistantMessage, emptyUsage, type UserMessage } from "../messages/index.ts";
import {
  modelKindOf,
  type Provider,
  type ThinkingLevel,
  type ToolDefinition,
} from "../providers/index.ts";
import type { Store } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import type { EmitEvent } from "./agent-events.ts";
import { fallbackRefusal } from "./fallback-policy.ts";
import { streamAssistant } from "./stream-assistant.ts";

export const MAX_OVERFLOW_RETRIES = 3;
export const MAX_TIMEOUT_RETRIES = 2;
export const TIMEOUT_COMPACT_USAGE = 0.65;
const THINKING_STEPS: ThinkingLevel[] = ["high", "medium", "low", "minimal", "off"];
const FILE_WRITING_TOOLS = new Set(["write", "edit", "apply_patch"]);

export interface ModelCallInput {
  /** Read live: `/model` and a config reload change `models` while the agent runs. */
  config: { models: ModelsConfig; context: Pick<ContextConfig, "compaction"> };
  store: Store;
  engine: ContextEngine;
  logger: Logger;
  sessionId: string;
  runKind: RunKind;
  dynamic: DynamicContext;
  /** The owner's private files (MEMORY.md, USER.md) may enter the prompt (owner, not in a group). */
  privateFiles: boolean;
  /** Providers in fallback order (already resolved; missing ones left out). */
  chain: Provider[];
  /** Tool definitions as `provider` should see them (policy applied, schemas normalized). */
  toolsFor(provider: Provider): ToolDefinition[];
  thinkingLevel: ThinkingLevel;
  toolChoice?: "auto" | "required";
  /**
   * The new user message, not stored yet: the first assemble decorates it (per-turn
   * facts for local models) and `storePending` stores the decorated form before the
   * model is called. Stored raw if assembling fails, so it is never lost.
   */
  pending?: UserMessage;
  storePending(message: UserMessage): Promise<void>;
  /** The silent pre-compaction memory flush turn (absent inside a flush turn itself). */
  memoryFlush?: () => Promise<void>;
  /** A silent housekeeping turn (the memory flush): it never compacts. */
  housekeeping?: boolean;
  signal: AbortSignal;
  emit: EmitEvent;
}

export interface ModelCallResult {
  message: AssistantMessage;
  provider?: Provider;
  error?: ClawboxError;
  /** Thinking level that worked (the caller keeps it for the next turns). */
  thinkingLevel: ThinkingLevel;
}

/** True when the provider classified the error as "this thinking/reasoning level is refused". */
export function rejectsThinkingLevel(error: ClawboxError): boolean {
  return error.details?.thinkingLevelRejected === true;
}

function lowerThinking(level: ThinkingLevel): ThinkingLevel {
  const index = THINKING_STEPS.indexOf(level);
  return THINKING_STEPS[Math.min(THINKING_STEPS.length - 1, index + 1)] ?? "off";
}

export async function callModel(input: ModelCallInput): Promise<ModelCallResult> {
  let thinkingLevel = input.thinkingLevel;
  let last: ModelCallResult | undefined;
  let pending = input.pending;
  const storePending = async (message: UserMessage) => {
    pending = undefined;
    await input.storePending(message);
  };
  if (input.chain.length === 0) {
    if (pending) await storePending(pending);
    const error = new ClawboxError(
      "MODEL_NOT_FOUND",
      `no model provider is configured for "${input.config.models.primary}"`,
      {
        hint: "set models.primary and models.providers in clawbox.json",
      },
    );
    return { message: blank(input, error.message), error, thinkingLevel };
  }
  for (const provider of input.chain) {
    const refusal = fallbackRefusal(provider, last?.error, input.config.models);
    if (refusal) {
      input.logger.warn(`not using ${provider.id}: ${refusal}`);
      if (last) break;
      continue;
    }
    let overflowRetries = 0;
    let timeoutRetries = 0;
    let thresholdTried = false;
    for (;;) {
      const session = input.store.sessions.require(input.sessionId);
      const tools = input.toolsFor(provider);
      const modelKind = modelKindOf(provider);
      let context: AssembledContext;
      try {
        context = await input.engine.assemble(
          {
            session,
            provider,
            modelKind,
            runKind: input.runKind,
            tools,
            dynamic: input.dynamic,
            privateFiles: input.privateFiles,
          },
          pending,
        );
      } catch (error) {
        if (pending) await storePending(pending);
        throw error;
      }
      if (pending) await storePending(context.pendingMessage ?? pending);
      const aggressive = input.config.context.compaction.mode === "aggressive";
      // The flush turn can only write notes when a file tool fits the model's budget.
      const canWrite = context.tools.some((tool) => FILE_WRITING_TOOLS.has(tool.name));
      if (
        (context.compactionAdvised || aggressive) &&
        !input.engine.ownsCompaction &&
        !input.housekeeping &&
        !thresholdTried
      ) {
        // Near the window (or aggressive mode): let the engine compact once before the call
        // instead of silently dropping history; it declines when not needed.
        thresholdTried = true;
        if (await compactSafely(input, provider, "threshold", canWrite)) continue;
      }
      const outcome = await streamAssistant(
        provider,
        {
          systemPrompt: context.systemPrompt,
          cacheBoundary: context.cacheBoundary,
          messages: context.messages,
          tools: context.tools,
          ...(input.toolChoice && context.tools.length > 0 ? { toolChoice: input.toolChoice } : {}),
          sessionId: input.sessionId,
          thinkingLevel,
          signal: input.signal,
        },
        input.emit,
      );
      if (!outcome.error) return { message: outcome.message, provider, thinkingLevel };
      const error = outcome.error;
      last = { message: outcome.message, provider, error, thinkingLevel };
      if (error.code === "ABORTED" || input.signal.aborted) return last;
      const log = { provider: provider.id, code: error.code, error: error.message };
      if (
        error.code === "CONTEXT_OVERFLOW" &&
        !input.housekeeping &&
        overflowRetries < MAX_OVERFLOW_RETRIES
      ) {
        overflowRetries++;
        input.logger.warn("context overflow: compacting and retrying", {
          ...log,
          attempt: overflowRetries,
        });
        const compacted = await compactSafely(input, provider, "overflow", canWrite);
        if (compacted) continue;
      }
      if (
        error.code === "PROVIDER_TIMEOUT" &&
        !input.housekeeping &&
        timeoutRetries < MAX_TIMEOUT_RETRIES
      ) {
        const estimate = estimatePromptTokens(context.systemPrompt, context.messages);
        const usage = estimate / Math.max(1, await provider.contextWindow());
        if (usage > TIMEOUT_COMPACT_USAGE) {
          timeoutRetries++;
          input.logger.warn("timeout with a full context: compacting and retrying", {
            ...log,
            usage,
          });
          if (await compactSafely(input, provider, "timeout", canWrite)) continue;
        }
      }
      if (thinkingLevel !== "off" && rejectsThinkingLevel(error)) {
        const next = lowerThinking(thinkingLevel);
        input.logger.warn(`thinking level ${thinkingLevel} rejected: retrying with ${next}`, log);
        thinkingLevel = next;
        continue;
      }
      input.logger.warn("model call failed: trying the next model in the fallback chain", log);
      break;
    }
  }
  if (last) return last;
  if (pending) await storePending(pending);
  const error = new ClawboxError(
    "MODEL_NOT_FOUND",
    "no model may answer: models.localOnly is set and the chain has no local model",
    { hint: "add a local model to models.primary or models.fallbacks, or unset models.localOnly" },
  );
  return { message: blank(input, error.message), error, thinkingLevel };
}

/** An empty failed assistant message, stored when no model produced one. */
function blank(input: ModelCallInput, errorMessage: string): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    provider: input.config.models.primary,
    model: "none",
    usage: emptyUsage(),
    stopReason: "error",
    errorMessage,
    timestamp: Date.now(),
  };
}

async function compactSafely(
  input: ModelCallInput,
  provider: Provider,
  reason: "overflow" | "timeout" | "threshold",
  canWrite: boolean,
): Promise<boolean> {
  try {
    const result = await input.engine.compact({
      session: input.store.sessions.require(input.sessionId),
      provider,
      reason,
      signal: input.signal,
      ...(input.memoryFlush && canWrite ? { memoryFlush: input.memoryFlush } : {}),
      onEvent: (event) => input.emit(event),
    });
    return result.compacted;
  } catch (error) {
    input.logger.warn("compaction failed", {
      reason,
      error: errorMessage(error),
    });
    return false;
  }
}
