/**
 * The default context engine: workspace bootstrap files, skills, the layered system
 * prompt with a cache boundary, budget planning, history from the latest compaction,
 * in-memory pruning and repair, and compaction through the configured model. It reads
 * the store but changes it only by appending entries (compaction, repairs) and session
 * fields (skills snapshot, compaction count, memory flush state).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AgentConfig, ContextConfig, MemoryConfig, ModelsConfig } from "../config/index.ts";
import type { TranscriptEntry, UserMessage } from "../messages/index.ts";
import { renderTurnPrefix, safeTimezone, type TurnFacts } from "../prompt/index.ts";
import { modelKindOf } from "../providers/index.ts";
import type { SessionRow, Store } from "../store/index.ts";
import { type HomePaths, type Logger, runtimeLayout } from "../system/index.ts";
import { FileCache, processSkillEnvironment, WorkspaceWatcher } from "../workspace/index.ts";
import { assembleHistory, isFirstRun, readBranch } from "./assemble-history.ts";
import { type BranchMessage, branchMessages } from "./branch-messages.ts";
import { buildContextReport } from "./build-context-report.ts";
import { compactSession } from "./compaction/compact-session.ts";
import type {
  AssembledContext,
  AssembleInput,
  CompactInput,
  CompactResult,
  ContextEngine,
  ContextReportInput,
} from "./context-engine.ts";
import type { ContextReport } from "./context-report.ts";
import { noteRitual } from "./first-run-ritual.ts";
import { fitPending, messageTooLongError } from "./fit-pending.ts";
import { MessageTokenCache } from "./message-token-cache.ts";
import { type PromptEnv, preparePrompt } from "./prepare-prompt.ts";
import { repairTranscript, SYNTHETIC_ENTRY_PREFIX } from "./repair-transcript.ts";
import type { ModelKind, RunKind } from "./run-kinds.ts";
import { skillDirsFor } from "./skill-dirs.ts";
import { updateSkillsSnapshot } from "./skills-snapshot.ts";
import { templateOverhead } from "./template-overhead.ts";
import { createTokenCounter, type TokenCounter, type TokenSource } from "./token-counter.ts";

/** The config sections the engine reads; `models` on each use (a config reload replaces it). */
export interface ContextEngineConfig {
  agent: Pick<AgentConfig, "timezone">;
  context: ContextConfig;
  memory: Pick<MemoryConfig, "enabled">;
  models: Pick<ModelsConfig, "providers">;
}

export interface ContextEngineDeps {
  config: ContextEngineConfig;
  store: Store;
  /** Home paths with the configured workspace applied. */
  paths: HomePaths;
  logger?: Logger;
  /** Environment for skill requirements (default process.env). */
  env?: Record<string, string | undefined>;
  /** Watch the workspace for edits (default true). */
  watch?: boolean;
  /** Whether a stranger may read a file: their prompt lists only such skills (else none). */
  strangerMayRead?: (path: string) => boolean;
}

const MAX_FIXED_SESSIONS = 256;

interface ModelInfo extends TokenSource {
  providerId: string;
  model: string;
  contextWindow: number;
}

/** One assembly's inputs, by name; a report is an assembly without a pending message. */
interface BuildInput {
  session: SessionRow | undefined;
  modelKind: ModelKind;
  runKind: RunKind;
  model: ModelInfo;
  counter: TokenCounter;
  tools: AssembleInput["tools"];
  /** Per-turn facts that lead the pending message (`renderTurnPrefix`). */
  facts: TurnFacts;
  pending?: UserMessage | undefined;
  promptMode?: AssembleInput["promptMode"];
  /** Text appended to the system prompt (`systemPromptAddition`). */
  addition?: string | undefined;
  /** false: leave the owner's private files out of the prompt. */
  privateFiles?: boolean | undefined;
}

export class DefaultContextEngine implements ContextEngine {
  readonly id = "default";
  readonly ownsCompaction = false;
  private readonly cache = new FileCache();
  private readonly watcher: WorkspaceWatcher;
  private readonly tokens = new MessageTokenCache();
  private readonly counters = new WeakMap<object, TokenCounter>();
  /** The fixed prompt's tokens of recent sessions, for compaction's plan (bounded, LRU). */
  private readonly fixed = new Map<string, number>();
  private readonly env: PromptEnv;

  constructor(private readonly deps: ContextEngineDeps) {
    const { config, paths } = deps;
    this.watcher = new WorkspaceWatcher(this.cache, deps.logger);
    const workspace = paths.workspace;
    const skillDirs = skillDirsFor(config.context.skills, paths);
    this.env = {
      workspace,
      cache: this.cache,
      skillDirs,
      skillEnv: processSkillEnvironment(deps.env ?? process.env),
      guideDir: join(runtimeLayout().docsDir, "guide"),
      timezone: safeTimezone(
        config.agent.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
      ),
      memoryEnabled: config.memory.enabled,
      perFileMaxChars: config.context.bootstrapMaxChars,
      totalMaxChars: config.context.bootstrapTotalMaxChars,
      reserveTokens: config.context.reserveTokens,
      maxSkillsListed: config.context.skills.maxListed,
      ...(deps.strangerMayRead ? { strangerMayRead: deps.strangerMayRead } : {}),
    };
    if (deps.watch !== false) {
      this.watcher.watch(workspace);
      for (const { dir } of skillDirs) this.watcher.watch(dir);
    }
  }

  private async counter(source: object & TokenSource): Promise<TokenCounter> {
    const known = this.counters.get(source);
    // A local model's tokenizer appears once the model is loaded: re-probe until exact.
    if (known?.exact) return known;
    const created = await createTokenCounter(source);
    this.counters.set(source, created);
    return created;
  }

  async ingest(_sessionId: string, _entries: TranscriptEntry[]): Promise<void> {
    // History is read from the store on every assembly; nothing to keep in step here.
  }

  async assemble(input: AssembleInput, pending?: UserMessage): Promise<AssembledContext> {
    const model: ModelInfo = {
      providerId: input.provider.id,
      model: input.provider.model,
      contextWindow: await input.provider.contextWindow(),
      ...(input.provider.countTokens
        ? {
            countTokens: (t: string) =>
              input.provider.countTokens?.(t) ?? Promise.resolve(undefined),
          }
        : {}),
    };
    const { report, messages, pendingMessage, compactionAdvised, system, tools } = await this.build(
      {
        session: input.session,
        modelKind: input.modelKind,
        runKind: input.runKind,
        model,
        counter: await this.counter(input.provider),
        tools: input.tools,
        facts: { ...input.dynamic, timezone: input.dynamic.timezone ?? this.env.timezone },
        pending,
        promptMode: input.promptMode,
        addition: input.systemPromptAddition,
        privateFiles: input.privateFiles,
      },
    );
    updateSkillsSnapshot(this.deps.store, input.session, report);
    return {
      systemPrompt: system.text,
      cacheBoundary: system.cacheBoundary,
      messages,
      tools,
      report,
      ...(pendingMessage ? { pendingMessage } : {}),
      compactionAdvised,
    };
  }

  async report(input: ContextReportInput): Promise<ContextReport> {
    const model: ModelInfo = input.provider
      ? {
          providerId: input.provider.id,
          model: input.provider.model,
          contextWindow: await input.provider.contextWindow(),
        }
      : (input.model ?? { providerId: "unknown", model: "unknown", contextWindow: 8192 });
    const counter = input.provider
      ? await this.counter(input.provider)
      : await createTokenCounter(input.tokens);
    const built = await this.build({
      session: input.session,
      modelKind: input.modelKind,
      runKind: input.runKind ?? "interactive",
      model,
      counter,
      tools: input.tools ?? [],
      facts: {
        channel: "report",
        chatType: "direct",
        now: Date.now(),
        timezone: this.env.timezone,
      },
      privateFiles: input.privateFiles,
    });
    return built.report;
  }

  private async build({
    session,
    modelKind,
    runKind,
    model,
    counter,
    tools,
    facts,
    pending,
    promptMode,
    addition,
    privateFiles,
  }: BuildInput) {
    const config = this.deps.config.context;
    const sessionId = session?.sessionId ?? "";
    this.tokens.startAssembly(sessionId);
    // The branch is read once; whether this is the first run decides BOOTSTRAP.md.
    const entries = readBranch(this.deps.store, session);
    const firstRun = isFirstRun(entries, pending);
    const prepared = await preparePrompt(
      { ...this.env, reserveTokens: this.reserveFor(model.providerId) },
      {
        modelKind,
        runKind,
        ...(promptMode ? { promptMode } : {}),
        model: { provider: model.providerId, model: model.model },
        contextWindow: model.contextWindow,
        tools,
        firstRun,
        ...(addition ? { addition } : {}),
        ...(privateFiles === false ? { privateFiles } : {}),
      },
      counter,
    );
    const { overhead } = prepared;
    const countMessage = async (item: BranchMessage) => {
      const n = await this.tokens.count(sessionId, item, counter);
      if (item.message.role !== "toolResult") return n + overhead.perMessage;
      return (
        n + overhead.perMessage + overhead.toolResult + Math.ceil(n * overhead.toolResultGrowth)
      );
    };
    // Asked of the disk, not of the prompt: a cron or heartbeat run reads the minimal
    // file set, where BOOTSTRAP.md is absent even while it waits for the owner.
    const { reachable } = prepared.workspace;
    const bootstrapOnDisk = reachable && existsSync(join(this.env.workspace, "BOOTSTRAP.md"));
    const ritual = { workspace: this.env.workspace, logger: this.deps.logger };
    if (runKind === "interactive") noteRitual({ ...ritual, reachable, present: bootstrapOnDisk });
    const fixed = prepared.fixedTokens;
    if (sessionId) this.rememberFixed(sessionId, fixed);
    const room = Math.max(0, prepared.caps.available - fixed);
    const fitted = pending
      ? await fitPending({
          pending,
          lead: [renderTurnPrefix(facts)],
          ...(prepared.userFile
            ? {
                bootstrapText:
                  prepared.workspace.files.find((f) => f.name === prepared.userFile?.name)?.text ??
                  prepared.userFile.text,
              }
            : prepared.userBlock
              ? { block: prepared.userBlock }
              : {}),
          room,
          countMessage: async (m) => (await counter.countMessage(m)) + overhead.perMessage,
        })
      : undefined;
    const pendingMessage = fitted?.message;
    const pendingTokens = fitted?.tokens ?? 0;
    // No compaction can help when the new message alone is bigger than the window allows.
    if (pendingTokens > room) throw messageTooLongError(model, pendingTokens, room);
    const historyBudget = Math.max(0, room - pendingTokens);
    const history = await assembleHistory({
      store: this.deps.store,
      session,
      entries,
      modelKind,
      ...(pending ? { pending } : {}),
      budgetTokens: historyBudget,
      pruning: { ...config.pruning, now: facts.now },
      countMessage,
    });
    const messages = history.messages.map((m) => m.message);
    if (pendingMessage) messages.push(pendingMessage);
    const report = buildContextReport({
      session,
      modelKind,
      runKind,
      model,
      workspacePath: this.env.workspace,
      bootstrapOnDisk,
      prepared,
      tools,
      history,
      messageCount: messages.length,
      pendingTokens,
      historyBudget,
      fixedTokens: fixed,
      fittedSteps: fitted?.steps ?? [],
      exactTokens: counter.exact,
    });
    return {
      report,
      messages,
      pendingMessage,
      compactionAdvised: history.compactionAdvised,
      system: prepared.system,
      tools: prepared.tools.kept,
    };
  }

  /** Kept for compaction; heartbeat runs start a new session each time, so it is bounded. */
  private rememberFixed(sessionId: string, tokens: number): void {
    this.fixed.delete(sessionId);
    this.fixed.set(sessionId, tokens);
    for (const oldest of this.fixed.keys()) {
      if (this.fixed.size <= MAX_FIXED_SESSIONS) break;
      this.fixed.delete(oldest);
    }
  }

  trim(idleMs: number): void {
    this.tokens.evictIdle(idleMs);
  }

  /**
   * Tokens to keep free for the reply: `context.reserveTokens`, but never more than the
   * provider asks the model for (`maxTokens`), so an 8k local model answering in 512
   * tokens does not give up a quarter of its window.
   */
  private reserveFor(providerId: string): number {
    const configured = this.deps.config.models.providers[providerId]?.maxTokens;
    const reserve = this.deps.config.context.reserveTokens;
    return configured ? Math.min(reserve, configured) : reserve;
  }

  async compact(input: CompactInput): Promise<CompactResult> {
    const counter = await this.counter(input.provider);
    const overhead = await templateOverhead(counter, modelKindOf(input.provider));
    return compactSession(
      {
        store: this.deps.store,
        config: { ...this.deps.config.context, reserveTokens: this.reserveFor(input.provider.id) },
        ...(this.deps.logger ? { logger: this.deps.logger } : {}),
        countMessage: (sessionId, item) => this.tokens.count(sessionId, item, counter),
        countText: (text) => counter.count(text),
        overheadTokens: overhead.frame + overhead.perMessage + overhead.slack,
        fixedTokens: (sessionId) => this.fixed.get(sessionId) ?? 0,
      },
      input,
    );
  }

  /**
   * Stores an error result for every tool call the transcript left unanswered (a run
   * killed mid-tool), as the in-memory repair would give it: matched within the turn by
   * `repairTranscript`, so a server that reuses call ids every turn (`call_0`) does not
   * make an earlier turn's result count for this one.
   *
   * Every run starts here and ends with its answer, so a branch that ends in an answer
   * (an assistant message without tool calls) has nothing to repair, and only its last
   * entry is read; a killed run leaves its tool call, a tool result or its user message
   * last, and the whole branch is read and repaired. This keeps a turn from reading and
   * parsing its session's history twice.
   */
  async maintain(sessionId: string, store: Store): Promise<void> {
    if (endsInAnswer(store, sessionId)) return;
    const entries = store.transcript.branch(sessionId, { fromLastCompaction: true });
    const { messages } = repairTranscript(branchMessages(entries).messages);
    for (const item of messages) {
      if (!item.entryId.startsWith(SYNTHETIC_ENTRY_PREFIX)) continue;
      store.transcript.append(sessionId, {
        type: "message",
        message: { ...item.message, timestamp: Date.now() },
      });
    }
  }

  dispose(): void {
    this.watcher.close();
  }
}

/** True when the session's branch ends in an assistant message that asks for no tool. */
function endsInAnswer(store: Store, sessionId: string): boolean {
  const leafId = store.transcript.leafId(sessionId);
  const leaf = leafId ? store.transcript.get(sessionId, leafId) : undefined;
  if (leaf?.type !== "message" || leaf.message.role !== "assistant") return false;
  return !leaf.message.content.some((block) => block.type === "toolCall");
}
