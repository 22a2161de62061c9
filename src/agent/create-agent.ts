/**
 * The agent: takes chat requests from any channel, runs them one at a time per
 * session (steering and follow-up queue) and at most `agent.maxConcurrent` at once,
 * and turns each run's outcome into a cleaned reply. Guarantees: the user message is
 * stored before any model call; every run ends with a stored assistant message (with
 * `stopReason: "error"` on failure) and a plain-words error for the user; a consumer's
 * throwing `onEvent` never breaks a run.
 */
import { join } from "node:path";
import type {
  AgentConfig,
  ContextConfig,
  CronConfig,
  HeartbeatConfig,
  HomeAssistantConfig,
  MemoryConfig,
  ModelsConfig,
  ToolsConfig,
} from "../config/index.ts";
import type { ContextEngine } from "../context/index.ts";
import { ClawboxError, toClawboxError } from "../errors/index.ts";
import type { HomeAssistantStatus, McpManager, McpServerStatus } from "../mcp/index.ts";
import { type Provider, failureMessage as plainFailureMessage } from "../providers/index.ts";
import {
  type Admission,
  createSessionResolver,
  OWNER,
  type SessionResolver,
} from "../sessions/index.ts";
import type { SessionRow, Store } from "../store/index.ts";
import { type HomePaths, type Logger, runtimeLayout } from "../system/index.ts";
import { type AgentTool, ownerPowers, resolveToolPath, toolDefinitions } from "../tools/index.ts";
import type { AgentEvent } from "./agent-events.ts";
import { createAgentTools } from "./agent-tools.ts";
import type { ChatRequest, ChatResult } from "./chat-request.ts";
import { createEngineSource } from "./engine-source.ts";
import { memoryFlushPrompt } from "./memory-flush.ts";
import { createModelSelection, type ModelSelection } from "./model-selection.ts";
import { createProviderCache, type ProviderSource } from "./provider-source.ts";
import { runAgentLoop } from "./run-agent-loop.ts";
import { resultOfLoop, storeTurnWithoutEngine } from "./run-result.ts";
import { createSessionAdmission } from "./session-admission.ts";
import { createSessionGate, type ExclusiveOptions } from "./session-gate.ts";
import { parseSlashCommand, runSlashCommand } from "./slash-commands.ts";
import { createSteeringInbox, type SteeringInbox } from "./steering-inbox.ts";

/**
 * The config sections the agent reads. The object is kept and read on each use: `/model`
 * sets `models.primary` and a config reload replaces `models` and `agent` in it.
 */
export interface AgentConfigSections {
  agent: AgentConfig;
  models: ModelsConfig;
  context: ContextConfig;
  memory: MemoryConfig;
  tools: ToolsConfig;
  heartbeat: HeartbeatConfig;
  cron: CronConfig;
  /** Home Assistant's MCP server (absent: not configured). */
  homeAssistant?: HomeAssistantConfig | undefined;
}

export interface AgentDeps {
  config: AgentConfigSections;
  store: Store;
  paths: HomePaths;
  logger: Logger;
  /** Providers by config id, or a lookup; default: built lazily from config by the providers area. */
  providers?: ProviderSource;
  /** Default: the context area's `createContextEngine`. */
  engine?: ContextEngine;
  /** Extra tools (memory, camera…) added to the base tools; all pass the policy. */
  tools?: AgentTool[];
  /** Tools that appear later; called at the start of every run. */
  dynamicTools?: () => AgentTool[];
  /** MCP servers; default: from `tools.mcp` in the config, connected in the background. */
  mcp?: McpManager;
  /** Who sessions belong to and which key a turn uses; default: built from `config.agent`. */
  sessions?: SessionResolver;
}

export interface Agent extends ModelSelection {
  /** Queued per session; one run at a time per session; `maxConcurrent` overall. Never rejects. */
  chat(request: ChatRequest): Promise<ChatResult>;
  /**
   * Whether `request`'s sender may add a turn to its session (a turn from another
   * principal never lands in one); nothing is created or changed. The agent checks again
   * when the turn runs; this answers early, e.g. for an HTTP 403 before a stream starts.
   */
  checkSession(request: ChatRequest): Admission;
  /** The agent's queue, cross-process lease and concurrency limit around `task` (session-gate.ts). */
  runExclusive<T>(
    sessionKey: string,
    task: () => Promise<T>,
    options?: ExclusiveOptions,
  ): Promise<T>;
  /** Every tool known before policy (names), for doctor and tests. */
  toolNames(): string[];
  /**
   * The tools besides the base tools, before policy: the runtime's extra tools, connected
   * MCP servers' tools and the dynamic (device) tools, for context reports.
   */
  extraTools(): AgentTool[];
  /** Runs in progress now (the heartbeat waits for 0 so it never delays the owner). */
  activeRuns(): number;
  /** Resolves when MCP servers had their first connection attempt (bounded by tools.mcp.connectTimeoutMs). */
  ready(): Promise<void>;
  /** Per MCP server: state, tool count, last error (for doctor and /health). */
  mcpStatus(): McpServerStatus[];
  /** The ids of the configured local models (`models.providers.<id>.kind: "local"`). */
  localModelIds(): string[];
  /** A configured local model, for `/v1` as a plain model server (no agent, tools or memory). */
  localModel(id: string): Provider | undefined;
  /** Home Assistant's MCP link: state, tool count and why it is down, in plain words. */
  homeAssistantStatus(): HomeAssistantStatus;
  /** Applies a changed `homeAssistant` section (the console's Save, an edited file): reconnects. */
  reloadHomeAssistant(section: HomeAssistantConfig | undefined): void;
  /** Resolves when no run is running or queued (the shutdown drain waits on it). */
  idle(): Promise<void>;
  /** Drops per-session caches (context token counts) of sessions idle for `idleMs`. */
  trim(idleMs: number): void;
  /** Aborts running and queued runs, waits for them, disposes providers. */
  close(): Promise<void>;
}

/** Folders `read` may open besides the workspace: bundled and managed skills, the user guide. */
function readOnlyRoots(paths: HomePaths): string[] {
  const layout = runtimeLayout();
  return [layout.skillsDir, paths.skillsDir, join(layout.docsDir, "guide")];
}

export function createAgent(deps: AgentDeps): Agent {
  const { config, store, paths, logger } = deps;
  const sessions = deps.sessions ?? createSessionResolver(config.agent);
  /** Aborts runs still waiting for another process to release their session. */
  const closed = new AbortController();
  const gate = createSessionGate({
    store,
    maxConcurrent: config.agent.maxConcurrent,
    logger,
    closed: closed.signal,
  });
  const inboxes = new Map<string, SteeringInbox>();
  const controllers = new Set<AbortController>();
  const providers = createProviderCache(deps.providers, config, logger, paths.kvCacheDir);
  const selection = createModelSelection(config, providers, logger, () => gate.idle());
  const engine = createEngineSource(deps.engine, {
    config,
    store,
    paths,
    logger,
    strangerMayRead: (path) => {
      try {
        resolveToolPath({ workspace: paths.workspace, isOwner: false }, path, "read");
        return true;
      } catch {
        return false;
      }
    },
  });
  let closing = false;

  const admission = createSessionAdmission({
    store,
    sessions,
    workspace: paths.workspace,
    logger,
  });

  const ownerOf = (request: ChatRequest) =>
    request.authenticatedOwner === true || sessions.isOwner(request.senderId);
  const tools = createAgentTools({
    store,
    config,
    logger,
    extra: deps.tools,
    dynamic: deps.dynamicTools,
    mcp: deps.mcp,
    homeAssistant: config.homeAssistant,
    isOwner: ownerOf,
  });

  const chain = () =>
    providers.chainIds().flatMap((id) => {
      const provider = providers.get(id);
      return provider ? [provider] : [];
    });

  const safeEmit = (request: ChatRequest) => (event: AgentEvent) => {
    if (!request.onEvent) return;
    try {
      request.onEvent(event);
    } catch (error) {
      logger.warn("onEvent threw; ignored", {
        event: event.type,
        error: toClawboxError(error).message,
      });
    }
  };

  async function run(request: ChatRequest): Promise<ChatResult> {
    const opened = admission.open(request);
    if ("refused" in opened) return opened.refused;
    const { session } = opened;
    const base = { sessionId: session.sessionId, sessionKey: session.sessionKey };
    if (closing || request.signal?.aborted) {
      return {
        ...base,
        reply: "",
        silent: true,
        error: { code: "ABORTED", message: plainFailureMessage(new ClawboxError("ABORTED", "")) },
      };
    }
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    request.signal?.addEventListener("abort", onAbort, { once: true });
    controllers.add(controller);
    const inbox = createSteeringInbox();
    inboxes.set(request.sessionKey, inbox);
    let result: ChatResult = { ...base, reply: "", silent: false };
    try {
      result = await runWithEngine(withHouseNotice(request), session, controller.signal);
      return result;
    } finally {
      inboxes.delete(request.sessionKey);
      request.signal?.removeEventListener("abort", onAbort);
      controllers.delete(controller);
      for (const offer of inbox.close(result)) {
        offer.resolve(chat({ ...offer.request, queueMode: "followup" }));
      }
    }
  }

  /**
   * A turn with the owner's tools is told when Home Assistant cannot be reached, so the
   * model says the house is unreachable instead of guessing (HA's tools are not offered).
   */
  function withHouseNotice(request: ChatRequest): ChatRequest {
    const sender = { isOwner: ownerOf(request), chatType: request.chatType };
    const notice = ownerPowers(sender, config.tools)
      ? tools.mcp.homeAssistant.unreachableNote()
      : undefined;
    return notice ? { ...request, notice } : request;
  }

  async function runWithEngine(
    request: ChatRequest,
    session: SessionRow,
    signal: AbortSignal,
  ): Promise<ChatResult> {
    // In a group chat the owner's turn has what the group's strangers have (tool-policy.ts).
    const owner = ownerPowers(
      { isOwner: ownerOf(request), chatType: request.chatType },
      config.tools,
    );
    const known = request.onlyTools ?? tools.all();
    const policyFor = (provider: Provider) => tools.offered(known, request, provider);
    let contextEngine: ContextEngine;
    try {
      contextEngine = await engine.get();
    } catch (error) {
      return storeTurnWithoutEngine(request, session, toClawboxError(error), {
        store,
        primary: config.models.primary,
        logger,
      });
    }
    try {
      // Repairs left by a killed run (e.g. a tool call without its result) before this run reads.
      await contextEngine.maintain(session.sessionId, store);
    } catch (error) {
      logger.warn("context maintenance failed", { error: toClawboxError(error).message });
    }
    const loopInput: Parameters<typeof runAgentLoop>[0] = {
      runId: crypto.randomUUID(),
      config,
      store,
      engine: contextEngine,
      logger,
      sessionId: session.sessionId,
      sessionKey: session.sessionKey,
      request,
      runKind: request.runKind ?? "interactive",
      chain: chain(),
      toolsFor: policyFor,
      definitionsFor: (provider, tools) => toolDefinitions(tools, provider.kind),
      knownTools: new Set(known.map((tool) => tool.name)),
      toolContext: {
        sessionId: session.sessionId,
        sessionKey: session.sessionKey,
        senderId: request.senderId,
        isOwner: owner,
        principal: sessions.principalOfSession(session),
        workspace: paths.workspace,
        readRoots: readOnlyRoots(paths),
        fileLimits: config.tools.files,
        channel: request.channel,
        chatType: request.chatType,
        groupId: request.groupId,
      },
      thinkingLevel: config.agent.thinkingLevel,
      drainSteering: () => inboxes.get(request.sessionKey)?.drain() ?? [],
      signal,
      emit: safeEmit(request),
    };
    // A stranger's conversation never writes the owner's memory: no flush turn for it.
    const loop = await runAgentLoop({
      ...loopInput,
      // The flush turn runs inside this run (same session slot), silently, without recursion.
      memoryFlush: !owner
        ? undefined
        : async () => {
            await runAgentLoop({
              ...loopInput,
              runId: crypto.randomUUID(),
              request: {
                ...request,
                text: memoryFlushPrompt(new Date()),
                images: [],
                toolChoice: "auto",
              },
              drainSteering: () => [],
              emit: () => {},
              housekeeping: true,
            });
          },
    });
    store.sessions.update(session.sessionId, {
      model: loop.provider ? `${loop.provider.id}/${loop.provider.model}` : undefined,
      abortedLastRun: loop.error?.code === "ABORTED",
    });
    return resultOfLoop(loop, session, config.models.primary, logger);
  }

  function chat(request: ChatRequest): Promise<ChatResult> {
    const slash = parseSlashCommand(request.text);
    if (slash) {
      const handle = async () => {
        const opened = admission.open(request);
        if ("refused" in opened) return opened.refused;
        const current = opened.session;
        return runSlashCommand(slash.command, slash.args, {
          store,
          request,
          session: () => store.sessions.require(current.sessionId),
          newSession: () =>
            store.sessions.create({
              sessionKey: request.sessionKey,
              chatType: request.chatType,
              deliveryContext: current.deliveryContext ?? undefined,
              principal: sessions.principalOfSession(current),
              cwd: paths.workspace,
            }),
          engine: engine.get,
          primary: () => chain()[0],
          chainIds: () => providers.chainIds(),
          toolDefinitions: (provider) =>
            toolDefinitions(tools.offered(tools.all(), request, provider), provider.kind),
          homeAssistantChoice: () => tools.homeAssistantChoice(request.sessionKey),
          privateFiles: ownerOf(request) && request.chatType !== "group",
        });
      };
      // Read-only commands answer at once; the others wait for the session's turn.
      return slash.command === "status" || slash.command === "context"
        ? handle()
        : gate.runExclusive(request.sessionKey, handle, {
            unlimited: true,
            ...(request.signal ? { signal: request.signal } : {}),
          });
    }
    if (request.queueMode === "steer") {
      const inbox = inboxes.get(request.sessionKey);
      if (inbox) {
        // A steering message joins a running turn: the same ownership rule applies.
        const decision = admission.check(request);
        return decision.ok
          ? inbox.offer(request)
          : Promise.resolve(admission.refusal(request, decision.message));
      }
    }
    return gate
      .runExclusive(request.sessionKey, () => run(request), {
        ...(request.signal ? { signal: request.signal } : {}),
        // Owners first: a stranger's turn gets the strangers' bounded share (session-gate.ts).
        stranger: sessions.principalOfTurn(request) !== OWNER,
      })
      .catch((error: unknown) => {
        const classified = toClawboxError(error);
        const level =
          classified.code === "ABORTED"
            ? "info"
            : classified.code === "AGENT_BUSY"
              ? "warn"
              : "error";
        logger[level](classified.code === "AGENT_BUSY" ? "run refused" : "run crashed", {
          sessionKey: request.sessionKey,
          code: classified.code,
          error: classified.message,
        });
        const session = store.sessions.byKey(request.sessionKey);
        return {
          sessionId: session?.sessionId ?? "",
          sessionKey: request.sessionKey,
          reply: plainFailureMessage(classified),
          silent: false,
          error: { code: classified.code, message: plainFailureMessage(classified) },
        };
      });
  }

  return {
    chat,
    checkSession: admission.check,
    runExclusive: (sessionKey, task, options) => gate.runExclusive(sessionKey, task, options),
    ...selection,
    toolNames: () => tools.all().map((tool) => tool.name),
    extraTools: tools.extra,
    activeRuns: () => controllers.size,
    ready: () => tools.mcp.ready(),
    idle: () => gate.idle(),
    trim: (idleMs) => engine.trim(idleMs),
    mcpStatus: () => tools.mcp.status(),
    homeAssistantStatus: () => tools.mcp.homeAssistant.status(),
    localModelIds: () => providers.localIds(),
    localModel: (id) => providers.local(id),
    reloadHomeAssistant: (section) => tools.mcp.homeAssistant.configure(section),
    async close() {
      closing = true;
      closed.abort();
      for (const controller of controllers) controller.abort();
      await gate.idle();
      await tools.mcp.close();
      engine.dispose();
      for (const provider of providers.created()) {
        try {
          await provider.dispose?.();
        } catch (error) {
          logger.warn(`disposing provider ${provider.id} failed`, {
            error: toClawboxError(error).message,
          });
        }
      }
    },
  };
}
