/**
 * The inner loop of one run: store the user message (durable before any model call),
 * then model call → tool calls → tool results → next model call, until the model
 * answers without tool calls or `maxIterations` is reached (the last call is offered
 * no tools, so the model must answer in words). Steering messages join at turn
 * boundaries. Every assistant message and tool result is stored as it completes, so
 * an abort or failure at any point leaves a consistent transcript.
 */
import type { AgentConfig, ContextConfig, ModelsConfig, ToolsConfig } from "../config/index.ts";
import type { ContextEngine, DynamicContext, RunKind } from "../context/index.ts";
import { ClawboxError, toClawboxError } from "../errors/index.ts";
import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  type ToolCall,
  type ToolResultMessage,
  type UserMessage,
} from "../messages/index.ts";
import {
  type CostPerMillion,
  failureMessage,
  type Provider,
  type ThinkingLevel,
  type ToolDefinition,
  withCost,
} from "../providers/index.ts";
import type { Store } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import type { AgentTool, ToolContext } from "../tools/index.ts";
import type { EmitEvent } from "./agent-events.ts";
import { callModel } from "./call-model.ts";
import type { ChatRequest } from "./chat-request.ts";
import { executeTools } from "./execute-tools.ts";

/** The config sections a run reads, live: `/model` and a config reload change `models`. */
export interface RunLoopConfig {
  agent: Pick<AgentConfig, "timezone" | "maxIterations">;
  models: ModelsConfig;
  context: Pick<ContextConfig, "compaction">;
  tools: Pick<ToolsConfig, "execution">;
}

export interface RunLoopInput {
  runId: string;
  config: RunLoopConfig;
  store: Store;
  engine: ContextEngine;
  logger: Logger;
  sessionId: string;
  sessionKey: string;
  request: ChatRequest;
  runKind: RunKind;
  chain: Provider[];
  /** Tools the policy allows for `provider` (and this sender/channel). */
  toolsFor(provider: Provider): AgentTool[];
  definitionsFor(provider: Provider, tools: AgentTool[]): ToolDefinition[];
  knownTools: Set<string>;
  toolContext: Omit<ToolContext, "toolCallId" | "onUpdate" | "signal">;
  thinkingLevel: ThinkingLevel;
  /** Runs the silent pre-compaction memory flush turn; absent inside that turn. */
  memoryFlush?: () => Promise<void>;
  /** True for the flush turn itself: it never compacts. */
  housekeeping?: boolean;
  /** Steering messages that arrived since the last look. */
  drainSteering(): ChatRequest[];
  signal: AbortSignal;
  emit: EmitEvent;
}

export interface RunLoopResult {
  final: AssistantMessage;
  messages: Message[];
  error?: ClawboxError;
  provider?: Provider;
}

export function userMessageOf(request: ChatRequest): UserMessage {
  return {
    role: "user",
    content: request.images?.length
      ? [{ type: "text", text: request.text }, ...request.images]
      : request.text,
    timestamp: Date.now(),
  };
}

export function dynamicContextOf(
  request: ChatRequest,
  timezone: string | undefined,
): DynamicContext {
  return {
    channel: request.channel,
    senderId: request.senderId,
    senderName: request.senderName,
    chatType: request.chatType,
    groupId: request.groupId,
    messageId: request.messageId,
    replyTo: request.replyTo,
    receivedAt: request.receivedAt,
    capabilities: request.capabilities,
    notice: request.notice,
    now: Date.now(),
    timezone,
  };
}

export async function runAgentLoop(input: RunLoopInput): Promise<RunLoopResult> {
  const { store, engine, emit } = input;
  const messages: Message[] = [];
  const append = async (message: Message) => {
    const entry = store.transcript.append(input.sessionId, { type: "message", message });
    messages.push(message);
    try {
      await engine.ingest(input.sessionId, [entry]);
    } catch (error) {
      input.logger.warn("context engine ingest failed", { error: toClawboxError(error).message });
    }
  };
  const appendUser = async (user: UserMessage) => {
    emit({ type: "message_start", message: user });
    await append(user);
    emit({ type: "message_end", message: user });
  };

  emit({
    type: "agent_start",
    runId: input.runId,
    sessionId: input.sessionId,
    sessionKey: input.sessionKey,
  });
  let pending: UserMessage | undefined = userMessageOf(input.request);
  let thinkingLevel = input.thinkingLevel;
  let final: AssistantMessage | undefined;
  let failure: ClawboxError | undefined;
  let lastProvider: Provider | undefined;
  const maxIterations = input.config.agent.maxIterations;

  for (let turn = 1; ; turn++) {
    emit({ type: "turn_start", runId: input.runId, turn });
    const lastTurn = turn >= maxIterations;
    const offered = new Map<string, Map<string, AgentTool>>();
    const allowedFor = (provider: Provider) => {
      let map = offered.get(provider.id);
      if (!map) {
        map = new Map(lastTurn ? [] : input.toolsFor(provider).map((tool) => [tool.name, tool]));
        offered.set(provider.id, map);
      }
      return map;
    };
    let result: Awaited<ReturnType<typeof callModel>>;
    try {
      result = await callModel({
        config: input.config,
        store,
        engine,
        logger: input.logger,
        sessionId: input.sessionId,
        runKind: input.runKind,
        dynamic: dynamicContextOf(input.request, input.config.agent.timezone),
        privateFiles: input.toolContext.isOwner && input.request.chatType !== "group",
        chain: input.chain,
        toolsFor: (provider) => input.definitionsFor(provider, [...allowedFor(provider).values()]),
        thinkingLevel,
        toolChoice: turn === 1 ? input.request.toolChoice : undefined,
        pending,
        storePending: async (message) => {
          pending = undefined;
          await appendUser(message);
        },
        ...(input.memoryFlush ? { memoryFlush: input.memoryFlush } : {}),
        ...(input.housekeeping ? { housekeeping: true } : {}),
        signal: input.signal,
        emit,
      });
      pending = undefined;
    } catch (error) {
      if (pending) await appendUser(pending);
      pending = undefined;
      const classified = input.signal.aborted
        ? new ClawboxError("ABORTED", "run aborted")
        : toClawboxError(error);
      result = { message: failedTurnMessage(input, classified), error: classified, thinkingLevel };
    }
    thinkingLevel = result.thinkingLevel;
    lastProvider = result.provider ?? lastProvider;
    const message = result.message;
    message.usage = withCost(message.usage, pricesFor(input.config.models, message.provider));
    // Stored with the words the person is told (resultOfLoop), so the history says the same.
    if (result.error) message.errorText = failureMessage(result.error);
    await append(message);
    final = message;
    if (result.error) {
      failure = result.error;
      emit({ type: "turn_end", runId: input.runId, turn, message, toolResults: [] });
      break;
    }
    const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
    let toolResults: ToolResultMessage[] = [];
    if (calls.length > 0) {
      const pending: Promise<void>[] = [];
      toolResults = await executeTools({
        calls,
        allowed: result.provider ? allowedFor(result.provider) : new Map(),
        known: input.knownTools,
        context: { ...input.toolContext, signal: input.signal },
        mode: input.config.tools.execution,
        emit,
        onResult: (toolResult) => {
          pending.push(append(toolResult));
        },
      });
      await Promise.all(pending);
    }
    emit({ type: "turn_end", runId: input.runId, turn, message, toolResults });
    if (input.signal.aborted) {
      failure = new ClawboxError("ABORTED", "run aborted");
      // Close the turn with an assistant message so the stored transcript ends cleanly.
      if (calls.length > 0) {
        final = failedTurnMessage(input, failure);
        await append(final);
      }
      break;
    }
    const steering = input.drainSteering();
    for (const request of steering) await appendUser(userMessageOf(request));
    if (calls.length === 0 && steering.length === 0) break;
    if (lastTurn && steering.length === 0) {
      input.logger.warn("run stopped at agent.maxIterations", { maxIterations });
      break;
    }
  }
  emit({ type: "agent_end", runId: input.runId, messages });
  return {
    final: final ?? failedTurnMessage(input, new ClawboxError("INTERNAL", "no answer")),
    messages,
    error: failure,
    provider: lastProvider,
  };
}

function failedTurnMessage(input: RunLoopInput, error: ClawboxError): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    provider: input.chain[0]?.id ?? input.config.models.primary,
    model: input.chain[0]?.model ?? "none",
    usage: emptyUsage(),
    stopReason: error.code === "ABORTED" ? "aborted" : "error",
    errorMessage: error.message,
    errorText: failureMessage(error),
    timestamp: Date.now(),
  };
}

/** The prices `models.providers.<id>.cost` names, if any (local providers have none). */
function pricesFor(models: ModelsConfig, providerId: string): CostPerMillion | undefined {
  const provider = models.providers[providerId];
  return provider && "cost" in provider ? provider.cost : undefined;
}
