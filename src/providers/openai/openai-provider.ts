/**
 * OpenAI-compatible chat completions over streaming SSE (OpenAI, DashScope/Qwen,
 * MiniMax, llama-server, vLLM, Ollama, OpenRouter). Text, reasoning and tool-call deltas
 * are assembled across chunks; usage comes from the final chunk (`include_usage`), with
 * `cached_tokens` reported as cacheRead. A stream that ends before `[DONE]` or a finish
 * reason, or a tool call whose arguments are not JSON, ends as a classified error; a
 * connection lost after the finish reason arrived loses only the usage, so the reply
 * (and its complete tool calls) is kept. An `error` object inside the stream is
 * classified by its numeric `code` as the HTTP status it stands for (OpenRouter, vLLM),
 * and a streamed `refusal` is reported as the model refusing, not as an empty answer.
 */
import { randomUUID } from "node:crypto";
import type { OpenAIProviderConfig } from "../../config/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import type { StopReason, ToolCall } from "../../messages/index.ts";
import type { AssistantMessageBuilder } from "../assistant-message-builder.ts";
import type { AuthProfile } from "../auth-profiles.ts";
import { classifyHttpError, classifyStreamError, scrub } from "../classify-error.ts";
import type { ProviderEvent, ProviderRequest } from "../provider.ts";
import { RemoteProvider, type RemoteProviderDeps } from "../remote-provider.ts";
import type { SseEvent } from "../sse-reader.ts";
import { classifyMinimaxStatus, stoppedEarly } from "../stop-reasons.ts";
import { cutOffToolCall, parseToolArguments } from "../tool-arguments.ts";
import { type OpenAIChunk, openaiChunk } from "./openai-chunk.ts";
import { type OpenAIFlavor, resolveFlavor } from "./openai-flavor.ts";
import { openaiBody } from "./openai-request.ts";

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

export class OpenAIProvider extends RemoteProvider<OpenAIProviderConfig> {
  readonly kind = "openai" as const;
  protected readonly api = "openai-completions";
  private readonly flavor: OpenAIFlavor;

  constructor(id: string, config: OpenAIProviderConfig, deps: RemoteProviderDeps = {}) {
    super(id, config, deps);
    this.flavor = resolveFlavor(config);
  }

  protected endpoint(): string {
    return `${this.config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  }

  protected authHeaders(profile: AuthProfile): Record<string, string> {
    return profile.apiKey ? { authorization: `Bearer ${profile.apiKey}` } : {};
  }

  protected body(request: ProviderRequest): unknown {
    return openaiBody(request, this.config, this.flavor);
  }

  protected async *readReply(
    events: AsyncIterable<SseEvent>,
    builder: AssistantMessageBuilder,
    request: ProviderRequest,
  ): AsyncGenerator<ProviderEvent, StopReason> {
    const calls = new Map<number, PartialCall>();
    const toolNames = new Set(request.tools.map((tool) => tool.name));
    const reply = { refusal: "" };
    let finish: string | undefined;
    let sawDone = false;
    const stream = events[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<SseEvent>;
      try {
        next = await stream.next();
      } catch (error) {
        // The finish reason ends the choice: only usage and `[DONE]` were still to come.
        if (finish !== undefined && isConnectionLost(error)) break;
        throw error;
      }
      if (next.done) break;
      const event = next.value;
      if (event.event === "error") throw this.streamError(event.data);
      if (event.data.trim() === "[DONE]") {
        sawDone = true;
        break;
      }
      const chunk = this.parseChunk(event.data);
      for (const out of this.applyChunk(chunk, builder, calls, toolNames, reply)) yield out;
      const reason = chunk.choices?.find((choice) => choice.finish_reason)?.finish_reason;
      if (reason) finish = reason;
    }
    if (!sawDone && finish === undefined) {
      throw new ClawboxError(
        "PROVIDER_NETWORK",
        `${this.id}: response stream ended before the reply was complete`,
        {
          hint: "the connection dropped; try again",
        },
      );
    }
    if (finish === "content_filter") throw stoppedEarly(this.id, "content_filter");
    if (reply.refusal !== "") {
      builder.appendText(reply.refusal);
      throw stoppedEarly(this.id, "refusal", scrub(reply.refusal.slice(0, 200), this.secrets));
    }
    const cutOff = finish === "length";
    for (const call of this.finishCalls(calls, cutOff)) {
      builder.addToolCall(call);
      yield { type: "toolcall", toolCall: call };
    }
    if (cutOff) return "length";
    return builder.hasToolCalls() ? "toolUse" : "stop";
  }

  /** MiniMax answers some errors with HTTP 200 and `base_resp` instead of a stream. */
  protected override okBodyError(body: string, secrets: string[]): ClawboxError | undefined {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return undefined;
    }
    const parsed = openaiChunk.safeParse(json);
    if (!parsed.success) return undefined;
    return this.chunkError(parsed.data, secrets);
  }

  /** llama-server's `error: {code, message, type}` line inside an open stream. */
  private streamError(data: string): ClawboxError {
    let type = "";
    let message = data;
    try {
      const json = JSON.parse(data) as { type?: unknown; message?: unknown; error?: unknown };
      const inner = (typeof json.error === "object" && json.error !== null ? json.error : json) as {
        type?: unknown;
        message?: unknown;
      };
      if (typeof inner.type === "string") type = inner.type;
      if (typeof inner.message === "string") message = inner.message;
    } catch {
      // not JSON: classify the raw text
    }
    return classifyStreamError(type, message, {
      provider: this.id,
      secrets: this.secrets,
    });
  }

  private parseChunk(data: string): OpenAIChunk {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw new ClawboxError(
        "PROVIDER_BAD_RESPONSE",
        `${this.id}: stream chunk is not JSON: ${scrub(data.slice(0, 120), this.secrets)}`,
      );
    }
    const parsed = openaiChunk.safeParse(json);
    if (!parsed.success) {
      throw new ClawboxError(
        "PROVIDER_BAD_RESPONSE",
        `${this.id}: unexpected stream chunk: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      );
    }
    const error = this.chunkError(parsed.data, this.secrets);
    if (error) throw error;
    return parsed.data;
  }

  /**
   * An `error` object, or a MiniMax `base_resp` with a non-zero status code. A numeric
   * `error.code` is the HTTP status the error would have had before the stream opened
   * (OpenRouter: "code is the HTTP status"; vLLM: 400 BadRequestError, 500
   * InternalServerError), so it is classified like that status.
   */
  private chunkError(chunk: OpenAIChunk, secrets: string[]): ClawboxError | undefined {
    const error = chunk.error;
    if (error) {
      if (typeof error.code === "number" && error.code >= 400 && error.code <= 599) {
        return classifyHttpError(error.code, error.message ?? error.type ?? "", {
          provider: this.id,
          secrets,
        });
      }
      const code = typeof error.code === "string" ? error.code : "";
      return classifyStreamError(`${error.type ?? ""} ${code}`.trim(), error.message ?? "", {
        provider: this.id,
        secrets,
      });
    }
    const base = chunk.base_resp;
    if (base?.status_code) {
      return classifyMinimaxStatus(base.status_code, base.status_msg ?? "", {
        provider: this.id,
        secrets,
      });
    }
    return undefined;
  }

  private *applyChunk(
    chunk: OpenAIChunk,
    builder: AssistantMessageBuilder,
    calls: Map<number, PartialCall>,
    toolNames: Set<string>,
    reply: { refusal: string },
  ): Generator<ProviderEvent> {
    if (chunk.usage) {
      const prompt = chunk.usage.prompt_tokens ?? 0;
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      builder.setUsage({
        input: Math.max(0, prompt - cached),
        cacheRead: cached,
        output: chunk.usage.completion_tokens ?? 0,
      });
    }
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta;
      if (!delta) continue;
      // DeepSeek, Qwen and vLLM send `reasoning_content`; OpenRouter, Ollama and newer vLLM `reasoning`.
      const reasoning = delta.reasoning_content || delta.reasoning;
      if (reasoning) {
        builder.appendThinking(reasoning);
        yield { type: "thinking_delta", delta: reasoning };
      }
      if (delta.content) {
        builder.appendText(delta.content);
        yield { type: "text_delta", delta: delta.content };
      }
      if (delta.refusal) reply.refusal += delta.refusal;
      for (const part of delta.tool_calls ?? []) {
        const index = part.index ?? calls.size;
        const call = calls.get(index) ?? { id: "", name: "", args: "" };
        if (part.id) call.id = part.id;
        if (part.function?.name)
          call.name = mergeToolName(call.name, part.function.name, toolNames);
        if (part.function?.arguments) call.args += part.function.arguments;
        calls.set(index, call);
      }
    }
  }

  /** Parses the assembled calls; `cutOff` (length stop) marks incomplete ones truncated. */
  private finishCalls(calls: Map<number, PartialCall>, cutOff: boolean): ToolCall[] {
    return [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => {
        const id = call.id || `call_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
        if (cutOff) return cutOffToolCall(id, call.name, call.args);
        return {
          type: "toolCall" as const,
          id,
          name: call.name,
          arguments: parseToolArguments(this.id, call.name, call.args, "arguments"),
        };
      });
  }
}

/**
 * Tool names arrive in pieces on most servers ("read_" then "file"), but some (NIM,
 * Fireworks, some MiniMax deployments) resend the whole name in every chunk. Like the
 * official SDK, a chunk that carries a complete name replaces what we have; only a true
 * fragment is appended.
 */
export function mergeToolName(current: string, incoming: string, known: Set<string>): string {
  if (current === "" || incoming === current || incoming.startsWith(current)) return incoming;
  if (known.has(incoming) && !known.has(current + incoming)) return incoming;
  return current + incoming;
}

/** Reading the stream failed: the connection dropped or went quiet (not an abort). */
function isConnectionLost(error: unknown): boolean {
  return (
    error instanceof ClawboxError &&
    (error.code === "PROVIDER_NETWORK" || error.code === "PROVIDER_TIMEOUT")
  );
}
