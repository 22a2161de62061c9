/**
 * Fake Anthropic Messages server on 127.0.0.1 speaking real SSE (named events, as the
 * API sends them), for provider and agent tests. Replies are scripted per request;
 * with nothing scripted it answers "ok". Keys are read from `x-api-key`.
 *
 * Like the real API it rejects, with HTTP 400 `invalid_request_error`, requests that
 * break the Messages API's documented rules (docs.anthropic.com: Messages API,
 * "Tool use", "Extended thinking", "Prompt caching"): an empty text block anywhere
 * ("text content blocks must be non-empty"), an `is_error` tool_result holding anything
 * but text, extended thinking together with a tool_choice that forces tool use, and
 * more than 4 blocks marked `cache_control`.
 */
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "./scripted-sse-server.ts";

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
  | { type: "tool_use"; id: string; name: string; rawInput: string }
  | { type: "redacted_thinking"; data: string };

/** `answer` replies to valid requests nothing was scripted for (default: "ok"). */
export function startFakeAnthropic(
  answer: (request: RecordedRequest) => Step = () => anthropicReply([{ type: "text", text: "ok" }]),
): Promise<ScriptedServer> {
  return startScriptedServer(
    (headers) => headers["x-api-key"],
    answer,
    (request) => {
      const problem = invalidRequest(request.body);
      return problem ? anthropicStatus(400, "invalid_request_error", problem) : undefined;
    },
  );
}

type Json = Record<string, unknown>;
const asBlocks = (value: unknown): Json[] =>
  Array.isArray(value) ? (value.filter((v) => typeof v === "object" && v !== null) as Json[]) : [];

/** Blocks carrying `cache_control` in tools, system and message content (tool_result included). */
function cacheBreakpoints(body: Json): number {
  const marked = (blocks: Json[]) => blocks.filter((block) => block.cache_control != null).length;
  return (
    marked(asBlocks(body.tools)) +
    marked(asBlocks(body.system)) +
    asBlocks(body.messages).reduce((n, message) => n + marked(asBlocks(message.content)), 0)
  );
}

/** The API's own wording for the rules it enforces, or undefined for a valid body. */
function invalidRequest(body: Json): string | undefined {
  const breakpoints = cacheBreakpoints(body);
  if (breakpoints > 4) {
    return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`;
  }
  const thinking = body.thinking as Json | undefined;
  const choice = (body.tool_choice as Json | undefined)?.type;
  if (thinking?.type === "enabled" && (choice === "any" || choice === "tool")) {
    return "Thinking may not be enabled when tool_choice forces tool use.";
  }
  for (const [i, block] of asBlocks(body.system).entries()) {
    if (block.type === "text" && block.text === "") {
      return `system.${i}: text content blocks must be non-empty`;
    }
  }
  for (const [i, message] of asBlocks(body.messages).entries()) {
    const content = message.content;
    if (content === "") return `messages.${i}: text content blocks must be non-empty`;
    for (const [j, block] of asBlocks(content).entries()) {
      const where = `messages.${i}.content.${j}`;
      if (block.type === "text" && block.text === "") {
        return `${where}: text content blocks must be non-empty`;
      }
      if (block.type !== "tool_result") continue;
      const inner = asBlocks(block.content);
      if (block.content === "") return `${where}: text content blocks must be non-empty`;
      for (const [k, part] of inner.entries()) {
        if (part.type === "text" && part.text === "") {
          return `${where}.content.${k}: text content blocks must be non-empty`;
        }
        if (block.is_error === true && part.type !== "text") {
          return `${where}: tool_result content must be text when is_error is true`;
        }
      }
    }
  }
  return undefined;
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
    } else if (block.type === "redacted_thinking") {
      events.push(
        ev("content_block_start", {
          index,
          content_block: { type: "redacted_thinking", data: block.data },
        }),
      );
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

/** Messages API errors page: HTTP 529 `overloaded_error`, the API is temporarily overloaded. */
export function anthropicOverloaded(headers?: Record<string, string>): Step {
  return anthropicStatus(529, "overloaded_error", "Overloaded", headers);
}

export const hang: Step = { kind: "hang" };
