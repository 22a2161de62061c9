/**
 * OpenAI-compatible chat completions over streaming SSE (OpenAI, DashScope/Qwen,
 * MiniMax, llama-server, Ollama by base URL). Text, reasoning and tool-call deltas are
 * assembled across chunks; usage comes from the final chunk (`include_usage`), with
 * `cached_tokens` reported as cacheRead. A stream that ends before `[DONE]` or a
 * finish reason, or a tool call whose arguments are not JSON, ends as a classified error.
 */
import { randomUUID } from "node:crypto";
import type { OpenAIProviderConfig } from "../../config/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import type { StopReason, ToolCall } from "../../messages/index.ts";
import type { AssistantMessageBuilder } from "../assistant-message-builder.ts";
import type { AuthProfile } from "../auth-profiles.ts";
import { classifyStreamError, scrub } from "../classify-error.ts";
import type { ProviderEvent, ProviderRequest } from "../provider.ts";
import { RemoteProvider, type RemoteProviderDeps } from "../remote-provider.ts";
import type { SseEvent } from "../sse-reader.ts";
import { parseToolArguments } from "../tool-arguments.ts";
import { dialectForBaseUrl, type SchemaDialect } from "../tool-schema.ts";
import { type OpenAIChunk, openaiChunk } from "./openai-chunk.ts";
import { openaiBody } from "./openai-request.ts";

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

export class OpenAIProvider extends RemoteProvider<OpenAIProviderConfig> {
  readonly kind = "openai" as const;
  protected readonly api = "openai-completions";
  private readonly dialect: SchemaDialect;

  constructor(id: string, config: OpenAIProviderConfig, deps: RemoteProviderDeps = {}) {
    super(id, config, deps);
    this.dialect =
      !config.flavor || config.flavor === "auto"
        ? dialectForBaseUrl(config.baseUrl)
        : config.flavor;
  }

  protected endpoint(): string {
    return `${this.config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  }

  protected authHeaders(profile: AuthProfile): Record<string, string> {
    return profile.apiKey ? { authorization: `Bearer ${profile.apiKey}` } : {};
  }

  protected body(request: ProviderRequest): unknown {
    return openaiBody(request, this.config, this.dialect);
  }

  protected async *readReply(
    events: AsyncIterable<SseEvent>,
    builder: AssistantMessageBuilder,
  ): AsyncGenerator<ProviderEvent, StopReason> {
    const calls = new Map<number, PartialCall>();
    let finish: string | undefined;
    let sawDone = false;
    for await (const event of events) {
      if (event.data.trim() === "[DONE]") {
        sawDone = true;
        break;
      }
      const chunk = this.parseChunk(event.data);
      for (const out of this.applyChunk(chunk, builder, calls)) yield out;
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
    for (const call of this.finishCalls(calls)) {
      builder.addToolCall(call);
      yield { type: "toolcall", toolCall: call };
    }
    return builder.hasToolCalls() ? "toolUse" : finish === "length" ? "length" : "stop";
  }

  private parseChunk(data: string): OpenAIChunk {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw new ClawboxError(
        "PROVIDER_BAD_RESPONSE",
        `${this.id}: stream chunk is not JSON: ${scrub(data.slice(0, 120))}`,
      );
    }
    const parsed = openaiChunk.safeParse(json);
    if (!parsed.success) {
      throw new ClawboxError(
        "PROVIDER_BAD_RESPONSE",
        `${this.id}: unexpected stream chunk: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      );
    }
    const error = parsed.data.error;
    if (error) {
      const code = typeof error.code === "string" ? error.code : "";
      throw classifyStreamError(`${error.type ?? ""} ${code}`.trim(), error.message ?? "", {
        provider: this.id,
        secrets: this.profiles.secrets(),
      });
    }
    return parsed.data;
  }

  private *applyChunk(
    chunk: OpenAIChunk,
    builder: AssistantMessageBuilder,
    calls: Map<number, PartialCall>,
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
      if (delta.reasoning_content) {
        builder.appendThinking(delta.reasoning_content);
        yield { type: "thinking_delta", delta: delta.reasoning_content };
      }
      if (delta.content) {
        builder.appendText(delta.content);
        yield { type: "text_delta", delta: delta.content };
      }
      for (const part of delta.tool_calls ?? []) {
        const index = part.index ?? calls.size;
        const call = calls.get(index) ?? { id: "", name: "", args: "" };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.args += part.function.arguments;
        calls.set(index, call);
      }
    }
  }

  private finishCalls(calls: Map<number, PartialCall>): ToolCall[] {
    return [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({
        type: "toolCall" as const,
        id: call.id || `call_${randomUUID().replaceAll("-", "").slice(0, 12)}`,
        name: call.name,
        arguments: parseToolArguments(this.id, call.name, call.args, "arguments"),
      }));
  }
}
