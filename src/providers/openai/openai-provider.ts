/**
 * OpenAI-compatible chat completions over streaming SSE (OpenAI, DashScope/Qwen,
 * MiniMax, llama-server, Ollama by base URL). Text, reasoning and tool-call deltas are
 * assembled across chunks; usage comes from the final chunk (`include_usage`), with
 * `cached_tokens` reported as cacheRead. A stream that ends before `[DONE]` or a
 * finish reason, or a tool call whose arguments are not JSON, ends as a classified error.
 */
import { randomUUID } from "node:crypto";
import type { OpenAIProviderConfig } from "../../config/sections/models.ts";
import { ClawboxError } from "../../errors/index.ts";
import type { StopReason, ToolCall } from "../../messages/index.ts";
import type { Logger } from "../../system/index.ts";
import { AssistantMessageBuilder } from "../assistant-message-builder.ts";
import { AuthProfiles } from "../auth-profiles.ts";
import { classifyStreamError, classifyThrown, scrub } from "../classify-error.ts";
import type { Provider, ProviderEvent, ProviderRequest, ProviderStats } from "../provider.ts";
import { ProviderCounters } from "../provider-counters.ts";
import { openRemoteStream, type RemoteStream } from "../remote-stream.ts";
import { dialectForBaseUrl, type SchemaDialect } from "../tool-schema.ts";
import { type OpenAIChunk, openaiChunk } from "./openai-chunk.ts";
import { openaiBody } from "./openai-request.ts";

export interface RemoteProviderDeps {
  logger?: Logger;
  fetch?: typeof fetch;
  now?: () => number;
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

export class OpenAIProvider implements Provider {
  readonly kind = "openai" as const;
  readonly model: string;
  private readonly profiles: AuthProfiles;
  private readonly counters = new ProviderCounters();
  private readonly dialect: SchemaDialect;

  constructor(
    readonly id: string,
    private readonly config: OpenAIProviderConfig,
    private readonly deps: RemoteProviderDeps = {},
  ) {
    this.model = config.model;
    this.profiles = new AuthProfiles(config.authProfiles, deps.now);
    this.dialect =
      !config.flavor || config.flavor === "auto"
        ? dialectForBaseUrl(config.baseUrl)
        : config.flavor;
  }

  async contextWindow(): Promise<number> {
    return this.config.contextWindow;
  }

  state(): "ready" {
    return "ready";
  }

  stats(): ProviderStats {
    return this.counters.snapshot({ authProfiles: this.profiles.status() });
  }

  async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const started = Date.now();
    const builder = new AssistantMessageBuilder(
      this.id,
      this.model,
      "openai-completions",
      this.config.cost,
    );
    yield { type: "start", model: this.model };
    let remote: RemoteStream | undefined;
    try {
      remote = await openRemoteStream({
        provider: this.id,
        url: `${this.config.baseUrl.replace(/\/+$/, "")}/chat/completions`,
        body: openaiBody(request, this.config, this.dialect),
        headers: (profile) => ({
          ...this.config.headers,
          ...(profile.apiKey ? { authorization: `Bearer ${profile.apiKey}` } : {}),
        }),
        profiles: this.profiles,
        timeoutMs: this.config.timeoutMs,
        fetch: this.deps.fetch ?? fetch,
        ...(request.signal ? { signal: request.signal } : {}),
        ...(this.deps.logger ? { logger: this.deps.logger } : {}),
        ...(this.deps.now ? { now: this.deps.now } : {}),
      });
      const calls = new Map<number, PartialCall>();
      let finish: string | undefined;
      let sawDone = false;
      for await (const event of remote.events) {
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
      const stopReason: StopReason = builder.hasToolCalls()
        ? "toolUse"
        : finish === "length"
          ? "length"
          : "stop";
      const message = builder.build(stopReason);
      this.counters.succeeded(message.usage, stopReason, started);
      yield { type: "done", message };
    } catch (thrown) {
      const error = classifyThrown(thrown, {
        provider: this.id,
        secrets: this.profiles.secrets(),
        aborted: request.signal?.aborted === true,
      });
      this.deps.logger?.warn("openai request failed", {
        provider: this.id,
        code: error.code,
        error: error.message,
      });
      this.counters.failed(error, builder.usage(), started);
      yield builder.errorEvent(error);
    } finally {
      remote?.close();
    }
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
      .map(([, call]) => {
        let args: unknown;
        try {
          args = call.args.trim() === "" ? {} : JSON.parse(call.args);
        } catch {
          throw new ClawboxError(
            "PROVIDER_BAD_RESPONSE",
            `${this.id}: tool call "${call.name}" has malformed JSON arguments`,
            {
              details: { tool: call.name, arguments: call.args.slice(0, 200) },
            },
          );
        }
        if (typeof args !== "object" || args === null || Array.isArray(args)) {
          throw new ClawboxError(
            "PROVIDER_BAD_RESPONSE",
            `${this.id}: tool call "${call.name}" arguments are not a JSON object`,
          );
        }
        return {
          type: "toolCall" as const,
          id: call.id || `call_${randomUUID().replaceAll("-", "").slice(0, 12)}`,
          name: call.name,
          arguments: args as Record<string, unknown>,
        };
      });
  }
}
