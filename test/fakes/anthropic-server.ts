/**
 * Fake Anthropic Messages server on 127.0.0.1 speaking real SSE (named events, as the
 * API sends them), for provider and agent tests. Replies are scripted per request;
 * with nothing scripted it answers "ok". Keys are read from `x-api-key`.
 */
import { type ScriptedServer, type Step, startScriptedServer } from "./scripted-sse-server.ts";

export type { ScriptedServer, Step } from "./scripted-sse-server.ts";

export interface AnthropicUsageScript {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; rawInput: string };

export function startFakeAnthropic(): Promise<ScriptedServer> {
  return startScriptedServer(
    (headers) => headers["x-api-key"],
    () => anthropicReply([{ type: "text", text: "ok" }]),
  );
}

function ev(type: string, data: Record<string, unknown>): { event: string; data: unknown } {
  return { event: type, data: { type, ...data } };
}

/** A full streamed message made of `blocks`; `dropAfter` cuts the connection after that many events. */
export function anthropicReply(
  blocks: AnthropicBlock[],
  options: {
    usage?: AnthropicUsageScript;
    stopReason?: string;
    dropAfter?: number;
    errorAfter?: { type: string; message: string };
  } = {},
): Step {
  const usage = options.usage ?? {};
  const events: { event?: string; data: unknown }[] = [
    ev("message_start", {
      message: {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        content: [],
        model: "claude-fake",
        usage: {
          input_tokens: usage.input ?? 10,
          output_tokens: 1,
          cache_read_input_tokens: usage.cacheRead ?? 0,
          cache_creation_input_tokens: usage.cacheWrite ?? 0,
        },
      },
    }),
    ev("ping", {}),
  ];
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const word of block.text.match(/\S+\s*/g) ?? [block.text]) {
        events.push(
          ev("content_block_delta", { index, delta: { type: "text_delta", text: word } }),
        );
      }
    } else if (block.type === "thinking") {
      events.push(
        ev("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }),
      );
      events.push(
        ev("content_block_delta", {
          index,
          delta: { type: "thinking_delta", thinking: block.thinking },
        }),
      );
      events.push(
        ev("content_block_delta", {
          index,
          delta: { type: "signature_delta", signature: block.signature },
        }),
      );
    } else {
      events.push(
        ev("content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        }),
      );
      const half = Math.ceil(block.rawInput.length / 2);
      events.push(
        ev("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: block.rawInput.slice(0, half) },
        }),
      );
      events.push(
        ev("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: block.rawInput.slice(half) },
        }),
      );
    }
    events.push(ev("content_block_stop", { index }));
  });
  if (options.errorAfter) events.push(ev("error", { error: options.errorAfter }));
  const hasTool = blocks.some((block) => block.type === "tool_use");
  events.push(
    ev("message_delta", {
      delta: { stop_reason: options.stopReason ?? (hasTool ? "tool_use" : "end_turn") },
      usage: { output_tokens: usage.output ?? 5 },
    }),
    ev("message_stop", {}),
  );
  return {
    kind: "events",
    events,
    ...(options.dropAfter !== undefined ? { dropAfter: options.dropAfter } : {}),
  };
}

export function anthropicStatus(
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): Step {
  return {
    kind: "status",
    status,
    body: { type: "error", error: { type, message } },
    ...(headers ? { headers } : {}),
  };
}

/** The error Anthropic returns for a prompt over the context window. */
export function anthropicOverflow(): Step {
  return anthropicStatus(
    400,
    "invalid_request_error",
    "prompt is too long: 210000 tokens > 200000 maximum",
  );
}

export const hang: Step = { kind: "hang" };
