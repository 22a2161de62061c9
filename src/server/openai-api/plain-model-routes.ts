/**
 * `/v1/chat/completions` for a local model id: the box as a plain model server (Home
 * Assistant's `llama_cpp` integration uses it as the model behind Assist). The request's
 * system prompt, history and tools go to the local provider as given, decoding is
 * constrained by the provider's JSON reply grammar to the offered tool names and their
 * parameter schemas, and tool calls come back as OpenAI `tool_calls`, whole or streamed
 * in the order HA's `_transform_stream` reads them (the calls before the chunk that
 * carries `finish_reason`). The box's agent, tools, memory, files and sessions are never
 * involved. All `/v1` requests share one KV sequence per local model, so a client that
 * resends its whole conversation (HA does, every turn) evaluates only what is new: the
 * provider keeps the longest common token prefix, and a reply resent as generated is
 * the very message (earlier-replies below), so its tokens match byte for byte.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { AssistantMessage, ToolCall } from "../../messages/index.ts";
import type { Provider, ProviderRequest } from "../../providers/index.ts";
import type { ChatBackend } from "../chat-backend.ts";
import { jsonError } from "../json-error.ts";
import { noIdleTimeout } from "../no-idle-timeout.ts";
import { type CompletionIds, completionIds } from "./chat-completion-response.ts";
import { openAiError } from "./openai-error-body.ts";
import { type PlainModelRequest, readPlainModelRequest, replyKey } from "./plain-model-request.ts";

/** Replies kept so a resent one is recognised (bounded; the oldest goes first). */
const KEPT_REPLIES = 64;
const NO_RETRY = { "x-should-retry": "false" };

type Finish = "stop" | "length" | "tool_calls";

interface Outcome {
  message?: AssistantMessage;
  error?: { code: string; message: string };
}

const callsOf = (message: AssistantMessage): ToolCall[] =>
  message.content.filter((b): b is ToolCall => b.type === "toolCall");
const textOf = (message: AssistantMessage): string =>
  message.content.map((b) => (b.type === "text" ? b.text : "")).join("");

function finishOf(message: AssistantMessage): Finish {
  if (callsOf(message).length > 0) return "tool_calls";
  return message.stopReason === "length" ? "length" : "stop";
}

const openAiCall = (call: ToolCall, index?: number) => ({
  ...(index === undefined ? {} : { index }),
  id: call.id,
  type: "function" as const,
  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
});

function usageOf(message: AssistantMessage | undefined) {
  const u = message?.usage;
  const prompt = (u?.input ?? 0) + (u?.cacheRead ?? 0);
  const completion = u?.output ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: u?.cacheRead ?? 0 },
  };
}

export function createPlainModelRoutes(deps: { backend: ChatBackend; keepAliveMs: number }) {
  const earlier = new Map<string, AssistantMessage>();
  const keep = (history: string, message: AssistantMessage) => {
    const key = replyKey(
      history,
      textOf(message),
      callsOf(message).map((c) => ({
        id: c.id,
        name: c.name,
        arguments: JSON.stringify(c.arguments),
      })),
    );
    earlier.delete(key);
    earlier.set(key, message);
    if (earlier.size > KEPT_REPLIES) earlier.delete(earlier.keys().next().value ?? "");
  };

  const providerRequest = (request: PlainModelRequest, signal: AbortSignal): ProviderRequest => ({
    systemPrompt: request.systemPrompt,
    messages: request.messages,
    tools: request.tools,
    toolChoice: request.toolChoice,
    // One sequence per local model for every /v1 client: prefix reuse, never the agent's sessions.
    sessionId: `openai-api:plain:${request.model}`,
    ...(request.maxTokens ? { maxTokens: request.maxTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.stop.length ? { stop: request.stop } : {}),
    signal,
  });

  const run = async (
    provider: Provider,
    plain: PlainModelRequest,
    signal: AbortSignal,
    onText: (delta: string) => void,
  ): Promise<Outcome> => {
    for await (const event of provider.stream(providerRequest(plain, signal))) {
      if (event.type === "text_delta") onText(event.delta);
      else if (event.type === "done") {
        keep(plain.history, event.message);
        return { message: event.message };
      } else if (event.type === "error")
        return { error: { code: event.error.code, message: event.error.message } };
    }
    return { error: { code: "INTERNAL", message: "the model ended without an answer" } };
  };

  const whole = async (c: Context, provider: Provider, request: PlainModelRequest) => {
    const outcome = await run(provider, request, c.req.raw.signal, () => {});
    const message = outcome.message;
    if (!message)
      return c.json(
        {
          error: openAiError(
            outcome.error?.message ?? "failed",
            "server_error",
            outcome.error?.code ?? null,
          ),
        },
        502,
        NO_RETRY,
      );
    const calls = callsOf(message);
    const text = textOf(message);
    const ids = completionIds(request.model);
    return c.json({
      ...ids,
      object: "chat.completion",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: calls.length && !text ? null : text,
            refusal: null,
            ...(calls.length ? { tool_calls: calls.map((call) => openAiCall(call)) } : {}),
          },
          logprobs: null,
          finish_reason: finishOf(message),
        },
      ],
      usage: usageOf(message),
    });
  };

  const streamed = (c: Context, provider: Provider, request: PlainModelRequest) =>
    streamSSE(c, async (stream) => {
      const ids: CompletionIds = completionIds(request.model);
      const chunk = (delta: object, finish: Finish | null) => ({
        ...ids,
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(request.includeUsage ? { usage: null } : {}),
      });
      const send = (data: unknown) => stream.writeSSE({ data: JSON.stringify(data) });
      const keepAlive = setInterval(() => void stream.write(": keep-alive\n\n"), deps.keepAliveMs);
      try {
        await send(chunk({ role: "assistant", content: "" }, null));
        const pending: Promise<void>[] = [];
        const outcome = await run(provider, request, c.req.raw.signal, (delta) =>
          pending.push(send(chunk({ content: delta }, null))),
        );
        await Promise.all(pending);
        const message = outcome.message;
        if (!message) {
          await send({
            error: openAiError(
              outcome.error?.message ?? "failed",
              "server_error",
              outcome.error?.code ?? null,
            ),
          });
        } else {
          // Each call whole in its own chunk, before the finish chunk (HA stops reading there).
          for (const [index, call] of callsOf(message).entries())
            await send(chunk({ tool_calls: [openAiCall(call, index)] }, null));
          await send(chunk({}, finishOf(message)));
          if (request.includeUsage)
            await send({
              ...ids,
              object: "chat.completion.chunk",
              choices: [],
              usage: usageOf(message),
            });
        }
        await stream.writeSSE({ data: "[DONE]" });
      } finally {
        clearInterval(keepAlive);
      }
    });

  return {
    /** The local model ids `/v1` serves as plain models. */
    ids: (): string[] => deps.backend.localModelIds?.() ?? [],
    /** Answers a chat completion for local model `id`; undefined when `id` is not one. */
    complete(c: Context, id: string, raw: unknown): Response | Promise<Response> | undefined {
      const provider = deps.backend.localModel?.(id);
      if (!provider) return undefined;
      const read = readPlainModelRequest(raw, { find: (key) => earlier.get(key) });
      if (!read.ok) return jsonError(c, 400, "HTTP_BAD_REQUEST", read.message);
      noIdleTimeout(c);
      return read.request.stream
        ? streamed(c, provider, read.request)
        : whole(c, provider, read.request);
    },
  };
}
