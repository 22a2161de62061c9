/**
 * Anthropic Messages over streaming SSE, with prompt caching: the stable system-prompt
 * prefix is marked `cache_control: ephemeral` and cache writes/reads are reported as
 * cacheWrite/cacheRead usage. tool_use blocks become toolCall blocks (their JSON input
 * assembled from input_json_delta); thinking is kept with its signature. An `error`
 * event, a stream cut before message_stop, or malformed tool input end as classified
 * errors.
 */
import type { AnthropicProviderConfig } from "../../config/sections/models.ts";
import { ClawboxError } from "../../errors/index.ts";
import type { StopReason } from "../../messages/index.ts";
import { AssistantMessageBuilder } from "../assistant-message-builder.ts";
import { AuthProfiles } from "../auth-profiles.ts";
import { classifyStreamError, classifyThrown } from "../classify-error.ts";
import type { RemoteProviderDeps } from "../openai/openai-provider.ts";
import type { Provider, ProviderEvent, ProviderRequest, ProviderStats } from "../provider.ts";
import { ProviderCounters } from "../provider-counters.ts";
import { openRemoteStream, type RemoteStream } from "../remote-stream.ts";
import { type AnthropicEvent, anthropicEvent } from "./anthropic-event.ts";
import { anthropicBody } from "./anthropic-request.ts";

const KNOWN_EVENTS = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "ping",
  "error",
]);

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "toolUse",
};

interface OpenToolUse {
  id: string;
  name: string;
  json: string;
}

export class AnthropicProvider implements Provider {
  readonly kind = "anthropic" as const;
  readonly model: string;
  private readonly profiles: AuthProfiles;
  private readonly counters = new ProviderCounters();

  constructor(
    readonly id: string,
    private readonly config: AnthropicProviderConfig,
    private readonly deps: RemoteProviderDeps = {},
  ) {
    this.model = config.model;
    this.profiles = new AuthProfiles(config.authProfiles, deps.now);
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
      "anthropic-messages",
      this.config.cost,
    );
    yield { type: "start", model: this.model };
    const base = this.config.baseUrl.replace(/\/+$/, "");
    let remote: RemoteStream | undefined;
    try {
      remote = await openRemoteStream({
        provider: this.id,
        url: base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`,
        body: anthropicBody(request, this.config),
        headers: (profile) => ({
          ...this.config.headers,
          "anthropic-version": "2023-06-01",
          ...(profile.apiKey ? { "x-api-key": profile.apiKey } : {}),
        }),
        profiles: this.profiles,
        timeoutMs: this.config.timeoutMs,
        fetch: this.deps.fetch ?? fetch,
        ...(request.signal ? { signal: request.signal } : {}),
        ...(this.deps.logger ? { logger: this.deps.logger } : {}),
        ...(this.deps.now ? { now: this.deps.now } : {}),
      });
      const tools = new Map<number, OpenToolUse>();
      let stopReason: StopReason = "stop";
      let stopped = false;
      for await (const sse of remote.events) {
        const event = this.parseEvent(sse.data);
        if (!event) continue;
        if (event.type === "message_stop") {
          stopped = true;
          break;
        }
        if (event.type === "message_delta" && event.delta.stop_reason) {
          stopReason = STOP_REASONS[event.delta.stop_reason] ?? "stop";
        }
        yield* this.apply(event, builder, tools);
      }
      if (!stopped) {
        throw new ClawboxError(
          "PROVIDER_NETWORK",
          `${this.id}: response stream ended before message_stop`,
          {
            hint: "the connection dropped; try again",
          },
        );
      }
      if (builder.hasToolCalls()) stopReason = "toolUse";
      const message = builder.build(stopReason);
      this.counters.succeeded(message.usage, stopReason, started);
      yield { type: "done", message };
    } catch (thrown) {
      const error = classifyThrown(thrown, {
        provider: this.id,
        secrets: this.profiles.secrets(),
        aborted: request.signal?.aborted === true,
      });
      this.deps.logger?.warn("anthropic request failed", {
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

  private parseEvent(data: string): AnthropicEvent | undefined {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw new ClawboxError("PROVIDER_BAD_RESPONSE", `${this.id}: stream event is not JSON`);
    }
    const type =
      typeof json === "object" && json !== null ? (json as { type?: unknown }).type : undefined;
    if (typeof type !== "string" || !KNOWN_EVENTS.has(type)) return undefined;
    const parsed = anthropicEvent.safeParse(json);
    if (!parsed.success) {
      throw new ClawboxError(
        "PROVIDER_BAD_RESPONSE",
        `${this.id}: malformed ${type} event: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      );
    }
    if (parsed.data.type === "error") {
      throw classifyStreamError(parsed.data.error.type, parsed.data.error.message, {
        provider: this.id,
        secrets: this.profiles.secrets(),
      });
    }
    return parsed.data;
  }

  private *apply(
    event: AnthropicEvent,
    builder: AssistantMessageBuilder,
    tools: Map<number, OpenToolUse>,
  ): Generator<ProviderEvent> {
    switch (event.type) {
      case "message_start":
      case "message_delta": {
        const usage = event.type === "message_start" ? event.message.usage : event.usage;
        if (!usage) return;
        builder.setUsage({
          ...(usage.input_tokens != null ? { input: usage.input_tokens } : {}),
          ...(usage.output_tokens != null ? { output: usage.output_tokens } : {}),
          ...(usage.cache_read_input_tokens != null
            ? { cacheRead: usage.cache_read_input_tokens }
            : {}),
          ...(usage.cache_creation_input_tokens != null
            ? { cacheWrite: usage.cache_creation_input_tokens }
            : {}),
        });
        return;
      }
      case "content_block_start":
        if (event.content_block.type === "tool_use") {
          tools.set(event.index, {
            id: event.content_block.id ?? `toolu_${event.index}`,
            name: event.content_block.name ?? "",
            json: "",
          });
        }
        return;
      case "content_block_delta": {
        const delta = event.delta;
        if (delta.type === "text_delta" && delta.text) {
          builder.appendText(delta.text);
          yield { type: "text_delta", delta: delta.text };
        } else if (delta.type === "thinking_delta" && delta.thinking) {
          builder.appendThinking(delta.thinking);
          yield { type: "thinking_delta", delta: delta.thinking };
        } else if (delta.type === "signature_delta" && delta.signature) {
          builder.appendThinking("", delta.signature);
        } else if (delta.type === "input_json_delta" && delta.partial_json) {
          const open = tools.get(event.index);
          if (open) open.json += delta.partial_json;
        }
        return;
      }
      case "content_block_stop": {
        const open = tools.get(event.index);
        if (!open) return;
        tools.delete(event.index);
        const call = {
          type: "toolCall" as const,
          id: open.id,
          name: open.name,
          arguments: this.parseInput(open),
        };
        builder.addToolCall(call);
        yield { type: "toolcall", toolCall: call };
        return;
      }
      default:
        return;
    }
  }

  private parseInput(open: OpenToolUse): Record<string, unknown> {
    let value: unknown;
    try {
      value = open.json.trim() === "" ? {} : JSON.parse(open.json);
    } catch {
      throw new ClawboxError(
        "PROVIDER_BAD_RESPONSE",
        `${this.id}: tool call "${open.name}" has malformed JSON input`,
        {
          details: { tool: open.name, input: open.json.slice(0, 200) },
        },
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new ClawboxError(
        "PROVIDER_BAD_RESPONSE",
        `${this.id}: tool call "${open.name}" input is not a JSON object`,
      );
    }
    return value as Record<string, unknown>;
  }
}
