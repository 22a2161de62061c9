/**
 * The agent: takes chat requests from any channel, runs them one at a time per
 * session (steering and follow-up queue) and at most `agent.maxConcurrent` at once,
 * and turns each run's outcome into a cleaned reply. Guarantees: the user message is
 * stored before any model call; every run ends with a stored assistant message (with
 * `stopReason: "error"` on failure) and a plain-words error for the user; a consumer's
 * throwing `onEvent` never breaks a run.
 */
import { join } from "node:path";
import type { ClawboxConfig } from "../config/index.ts";
import type { ContextEngine } from "../context/index.ts";
import { ClawboxError, toClawboxError } from "../errors/index.ts";
import { createMcpManager, type McpManager, type McpServerStatus } from "../mcp/index.ts";
import { type Provider, failureMessage as plainFailureMessage } from "../providers/index.ts";
import type { SessionRow, Store } from "../store/index.ts";
import { type HomePaths, type Logger, runtimeLayout } from "../system/index.ts";
import {
  type AgentTool,
  applyToolPolicy,
  createBaseTools,
  isOwner,
  orderByPriority,
  toolDefinitions,
} from "../tools/index.ts";
import type { AgentEvent } from "./agent-events.ts";
import type { ChatRequest, ChatResult } from "./chat-request.ts";
import { createConcurrencyLimit } from "./concurrency-limit.ts";
import { createEngineSource } from "./engine-source.ts";
import { memoryFlushPrompt } from "./memory-flush.ts";
import { createModelSelection, type ModelSelection } from "./model-selection.ts";
import { createProviderCache, type ProviderSource } from "./provider-source.ts";
import { runAgentLoop } from "./run-agent-loop.ts";
import { resultOfLoop, storeTurnWithoutEngine } from "./run-result.ts";
import { createSessionQueue } from "./session-queue.ts";
import { parseSlashCommand, runSlashCommand } from "./slash-commands.ts";
import { createSteeringInbox, type SteeringInbox } from "./steering-inbox.ts";

export interface AgentDeps {
  config: ClawboxConfig;
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
}

export interface Agent extends ModelSelection {
  /** Queued per session; one run at a time per session; `maxConcurrent` overall. Never rejects. */
  chat(request: ChatRequest): Promise<ChatResult>;
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
  /** Resolves when no run is running or queued (the shutdown drain waits on it). */
  idle(): Promise<void>;
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
  const limit = createConcurrencyLimit(config.agent.maxConcurrent);
  const queue = createSessionQueue();
  const inboxes = new Map<string, SteeringInbox>();
  const controllers = new Set<AbortController>();
  const providers = createProviderCache(deps.providers, config, logger);
  const selection = createModelSelection(config, providers, logger, () => queue.idle());
  const engine = createEngineSource(deps.engine, { config, store, paths, logger });
  const baseTools = createBaseTools({ store, tools: config.tools });
  const mcp = deps.mcp ?? createMcpManager(config.tools.mcp, logger.child("mcp"));
  mcp.start();
  const extraTools = () => [
    ...(deps.tools ?? []),
    ...mcp.tools(),
    ...(deps.dynamicTools?.() ?? []),
  ];
  const allTools = () => orderByPriority([...baseTools, ...extraTools()]);
  let closing = false;
  /** Aborts runs still waiting for another process to release their session. */
  const closed = new AbortController();

  /**
   * Holds the session's cross-process lease around `task`: `clawbox run` and a
   * `clawbox chat` on the same key take turns instead of interleaving transcripts.
   */
  async function withLease<T>(request: ChatRequest, task: () => Promise<T>): Promise<T> {
    const signal = request.signal
      ? AbortSignal.any([request.signal, closed.signal])
      : closed.signal;
    const lease = await store.leases.acquire(request.sessionKey, {
      signal,
      onWait: (holder) =>
        logger.info("session busy in another process; waiting for it", {
          sessionKey: request.sessionKey,
          pid: holder.pid,
          host: holder.host,
        }),
    });
    try {
      return await task();
    } finally {
      lease.release();
    }
  }

  const ownerOf = (request: ChatRequest) =>
    request.authenticatedOwner === true || isOwner(config, request.senderId);

  const chain = () =>
    providers.chainIds().flatMap((id) => {
      const provider = providers.get(id);
      return provider ? [provider] : [];
    });

  const sessionFor = (request: ChatRequest): SessionRow => {
    const deliveryContext = { channel: request.channel, to: request.groupId ?? request.senderId };
    const row = store.sessions.getOrCreate({
      sessionKey: request.sessionKey,
      chatType: request.chatType,
      deliveryContext,
      cwd: paths.workspace,
    });
    store.sessions.update(row.sessionId, {
      chatType: request.chatType,
      deliveryContext,
      lastChannel: request.channel,
      lastTo: deliveryContext.to ?? null,
    });
    return store.sessions.require(row.sessionId);
  };

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
    const session = sessionFor(request);
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
      result = await runWithEngine(request, session, controller.signal);
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

  /** The tools `request`'s sender may use with `provider`, after the whole policy pipeline. */
  function offeredTools(tools: AgentTool[], request: ChatRequest, provider: Provider): AgentTool[] {
    return applyToolPolicy(tools, config, {
      providerId: provider.id,
      channel: request.channel,
      chatType: request.chatType,
      groupId: request.groupId,
      senderId: request.senderId,
      isOwner: ownerOf(request),
      runKind: request.runKind ?? "interactive",
    });
  }

  async function runWithEngine(
    request: ChatRequest,
    session: SessionRow,
    signal: AbortSignal,
  ): Promise<ChatResult> {
    const owner = ownerOf(request);
    const tools = request.onlyTools ?? allTools();
    const policyFor = (provider: Provider) => offeredTools(tools, request, provider);
    let contextEngine: ContextEngine;
    try {
      contextEngine = await engine.get();
    } catch (error) {
      return storeTurnWithoutEngine(request, session, toClawboxError(error), {
        store,
        config,
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
      knownTools: new Set(tools.map((tool) => tool.name)),
      toolContext: {
        sessionId: session.sessionId,
        sessionKey: session.sessionKey,
        senderId: request.senderId,
        isOwner: owner,
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
    return resultOfLoop(loop, session, config, logger);
  }

  function chat(request: ChatRequest): Promise<ChatResult> {
    const slash = parseSlashCommand(request.text);
    if (slash) {
      const handle = () =>
        runSlashCommand(slash.command, slash.args, {
          store,
          request,
          session: () => sessionFor(request),
          newSession: () => {
            const current = sessionFor(request);
            return store.sessions.create({
              sessionKey: request.sessionKey,
              chatType: request.chatType,
              deliveryContext: current.deliveryContext ?? undefined,
              cwd: paths.workspace,
            });
          },
          engine: engine.get,
          primary: () => chain()[0],
          chainIds: () => providers.chainIds(),
          toolDefinitions: (provider) =>
            toolDefinitions(offeredTools(allTools(), request, provider), provider.kind),
        });
      // Read-only commands answer at once; the others wait for the session's turn.
      return slash.command === "status" || slash.command === "context"
        ? handle()
        : queue.enqueue(request.sessionKey, () => withLease(request, handle));
    }
    if (request.queueMode === "steer") {
      const inbox = inboxes.get(request.sessionKey);
      if (inbox) return inbox.offer(request);
    }
    return queue
      .enqueue(request.sessionKey, () => withLease(request, () => limit.run(() => run(request))))
      .catch((error: unknown) => {
        const classified = toClawboxError(error);
        logger[classified.code === "ABORTED" ? "info" : "error"]("run crashed", {
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
    ...selection,
    toolNames: () => allTools().map((tool) => tool.name),
    extraTools,
    activeRuns: () => controllers.size,
    ready: () => mcp.ready(),
    idle: () => queue.idle(),
    mcpStatus: () => mcp.status(),
    async close() {
      closing = true;
      closed.abort();
      for (const controller of controllers) controller.abort();
      await queue.idle();
      await mcp.close();
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
