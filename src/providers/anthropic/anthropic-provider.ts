/**
 * Anthropic Messages over streaming SSE, with prompt caching: the stable system-prompt
 * prefix is marked `cache_control: ephemeral` and cache writes/reads are reported as
 * cacheWrite/cacheRead usage. tool_use blocks become toolCall blocks (their JSON input
 * assembled from input_json_delta); thinking is kept with its signature, and
 * redacted_thinking whole, so both can be replayed. An `error` event, a stream cut
 * before message_stop, or malformed tool input end as classified errors; a tool call
 * cut by `max_tokens` is kept as a truncated call of a length stop, and `refusal`,
 * `pause_turn` and `model_context_window_exceeded` stops are reported as such.
 */
import type { AnthropicProviderConfig } from "../../config/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import type { StopReason } from "../../messages/index.ts";
import type { AssistantMessageBuilder } from "../assistant-message-builder.ts";
import type { AuthProfile } from "../auth-profiles.ts";
import { classifyStreamError } from "../classify-error.ts";
import type { ProviderEvent, ProviderRequest } from "../provider.ts";
import { RemoteProvider } from "../remote-provider.ts";
import type { SseEvent } from "../sse-reader.ts";
import { stoppedEarly } from "../stop-reasons.ts";
import { cutOffToolCall, parseToolArguments } from "../tool-arguments.ts";
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
/** Stop reasons that mean the reply did not finish normally (see stop-reasons.ts). */
const EARLY_STOPS = new Set(["refusal", "pause_turn", "model_context_window_exceeded"]);

interface OpenToolUse {
  id: string;
  name: string;
  json: string;
}

export class AnthropicProvider extends RemoteProvider<AnthropicProviderConfig> {
  readonly kind = "anthropic" as const;
  protected readonly api = "anthropic-messages";

  protected endpoint(): string {
    const base = this.config.baseUrl.replace(/\/+$/, "");
    return base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`;
  }

  protected authHeaders(profile: AuthProfile): Record<string, string> {
    return {
      "anthropic-version": "2023-06-01",
      ...(profile.apiKey ? { "x-api-key": profile.apiKey } : {}),
    };
  }

  protected body(request: ProviderRequest): unknown {
    return anthropicBody(request, this.config);
  }

  protected async *readReply(
    events: AsyncIterable<SseEvent>,
    builder: AssistantMessageBuilder,
  ): AsyncGenerator<ProviderEvent, StopReason> {
    const tools = new Map<number, OpenToolUse>();
    const unparsed: OpenToolUse[] = [];
    let stopReason: StopReason = "stop";
    let rawStop: string | undefined;
    let stopped = false;
    for await (const sse of events) {
      const event = this.parseEvent(sse.data);
      if (!event) continue;
      if (event.type === "message_stop") {
        stopped = true;
        break;
      }
      if (event.type === "message_delta" && event.delta.stop_reason) {
        rawStop = event.delta.stop_reason;
        stopReason = STOP_REASONS[rawStop] ?? "stop";
      }
      yield* this.apply(event, builder, tools, unparsed);
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
    if (rawStop && EARLY_STOPS.has(rawStop)) throw stoppedEarly(this.id, rawStop);
    // Tool input cut by max_tokens: kept as truncated calls (the model is told), not an error.
    const cut = [...unparsed, ...tools.values()];
    if (cut.length > 0) {
      if (stopReason !== "length") {
        const first = cut[0] as OpenToolUse;
        parseToolArguments(this.id, first.name, first.json, "input");
      }
      for (const open of cut) {
        const call = cutOffToolCall(open.id, open.name, open.json);
        builder.addToolCall(call);
        yield { type: "toolcall", toolCall: call };
      }
    }
    if (stopReason === "length") return "length";
    return builder.hasToolCalls() ? "toolUse" : stopReason;
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
        secrets: this.secrets,
      });
    }
    return parsed.data;
  }

  private *apply(
    event: AnthropicEvent,
    builder: AssistantMessageBuilder,
    tools: Map<number, OpenToolUse>,
    unparsed: OpenToolUse[],
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
        if (event.content_block.type === "redacted_thinking" && event.content_block.data) {
          builder.addRedactedThinking(event.content_block.data);
        } else if (event.content_block.type === "tool_use") {
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
        const complete = cutOffToolCall(open.id, open.name, open.json);
        // Incomplete input: decided at the end (a max_tokens stop makes it a truncated call).
        if (complete.truncated) {
          unparsed.push(open);
          return;
        }
        builder.addToolCall(complete);
        yield { type: "toolcall", toolCall: complete };
        return;
      }
      default:
        return;
    }
  }
}
