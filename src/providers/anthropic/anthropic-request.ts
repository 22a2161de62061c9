/**
 * Translates a ProviderRequest into an Anthropic Messages body. The system prompt is
 * split at the cache boundary: the stable prefix carries `cache_control: ephemeral`, the
 * dynamic rest follows uncached, so per-turn data never invalidates the cached prefix.
 * Tool results become `tool_result` blocks in user turns; consecutive same-role turns
 * are merged because the API requires alternation. Tool-call ids are made API-safe.
 *
 * What the real API rejects is never sent, even when an older transcript holds it:
 * empty text blocks ("text content blocks must be non-empty": an empty tool output gets
 * a placeholder), images inside an `is_error` tool_result (text only there), and
 * extended thinking together with a forced tool_choice (thinking is left off for that
 * request). Redacted thinking is replayed as `redacted_thinking`.
 *
 * Cache breakpoints (at most 3 of the API's 4): the stable system prompt (tools and
 * system); the end of the previous request's history (the user turn before the newest
 * assistant reply), which that request wrote to the cache and this one therefore reads;
 * and the newest user turn, written for the next request. A read needs a breakpoint
 * whose whole prefix matches a cached one, so the middle one is what lets a long
 * conversation (and every step of a tool loop) pay only for what is new.
 */
import type { AnthropicProviderConfig } from "../../config/index.ts";
import type { AssistantMessage, Message } from "../../messages/index.ts";
import type { ProviderRequest, ThinkingLevel } from "../provider.ts";
import { normalizeToolSchema } from "../tool-schema.ts";

type Block = Record<string, unknown>;
interface WireMessage {
  role: "user" | "assistant";
  content: Block[];
}

const THINKING_BUDGET: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
};

export function anthropicBody(
  request: ProviderRequest,
  config: AnthropicProviderConfig,
): Record<string, unknown> {
  let maxTokens = request.maxTokens ?? config.maxTokens;
  const body: Record<string, unknown> = { model: config.model, stream: true };
  const system = systemBlocks(request.systemPrompt, request.cacheBoundary);
  if (system.length > 0) body.system = system;
  body.messages = wireMessages(request.messages);
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: normalizeToolSchema(tool.parameters, "anthropic"),
    }));
    if (request.toolChoice === "required") body.tool_choice = { type: "any" };
  }
  const level = request.thinkingLevel;
  // "Thinking may not be enabled when tool_choice forces tool use."
  const forcedTool = request.toolChoice === "required" && request.tools.length > 0;
  if (level && level !== "off" && !forcedTool) {
    const budget = THINKING_BUDGET[level];
    body.thinking = { type: "enabled", budget_tokens: budget };
    maxTokens = Math.max(maxTokens, budget + 1024);
  } else {
    const temperature = request.temperature ?? config.temperature;
    if (temperature !== undefined) body.temperature = temperature;
  }
  body.max_tokens = maxTokens;
  return body;
}

export function systemBlocks(systemPrompt: string, cacheBoundary?: number): Block[] {
  const boundary = Math.min(Math.max(cacheBoundary ?? systemPrompt.length, 0), systemPrompt.length);
  const stable = systemPrompt.slice(0, boundary);
  const dynamic = systemPrompt.slice(boundary);
  const blocks: Block[] = [];
  if (stable !== "")
    blocks.push({ type: "text", text: stable, cache_control: { type: "ephemeral" } });
  if (dynamic !== "") blocks.push({ type: "text", text: dynamic });
  return blocks;
}

/** Anthropic accepts ids matching ^[a-zA-Z0-9_-]+$. */
export function safeToolId(id: string): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned === "" ? "toolu_empty" : cleaned;
}

/** Stands in for an empty tool output: the API rejects empty text blocks. */
export const EMPTY_OUTPUT_PLACEHOLDER = "(no output)";
const ERROR_IMAGE_PLACEHOLDER = "[image omitted: an error result carries text only]";

function wireMessages(messages: Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages) {
    const wire = toWire(message);
    if (wire.content.length === 0) continue;
    const last = out.at(-1);
    if (last && last.role === wire.role) last.content.push(...wire.content);
    else out.push(wire);
  }
  markHistoryBreakpoints(out);
  return out;
}

/**
 * Breakpoints on the last block of the newest user turn and of the user turn before the
 * newest assistant reply: where the previous request ended, so its cached prefix is read.
 */
function markHistoryBreakpoints(messages: WireMessage[]): void {
  const newest = messages.findLastIndex((message) => message.role === "user");
  const reply = messages.findLastIndex((message, i) => i < newest && message.role === "assistant");
  const previous = messages.findLastIndex((message, i) => i < reply && message.role === "user");
  for (const index of [previous, newest]) {
    const block = index >= 0 ? messages[index]?.content.at(-1) : undefined;
    if (block) block.cache_control = { type: "ephemeral" };
  }
}

function textBlock(text: string): Block[] {
  return text === "" ? [] : [{ type: "text", text }];
}

function imageBlock(block: { data: string; mimeType: string }): Block {
  return {
    type: "image",
    source: { type: "base64", media_type: block.mimeType, data: block.data },
  };
}

function toWire(message: Message): WireMessage {
  if (message.role === "user") {
    const content: Block[] =
      typeof message.content === "string"
        ? textBlock(message.content)
        : message.content.flatMap((block) =>
            block.type === "text" ? textBlock(block.text) : [imageBlock(block)],
          );
    return { role: "user", content };
  }
  if (message.role === "toolResult") {
    const content: Block[] = message.content.flatMap((block) => {
      if (block.type === "text") return textBlock(block.text);
      return message.isError
        ? [{ type: "text", text: ERROR_IMAGE_PLACEHOLDER }]
        : [imageBlock(block)];
    });
    if (content.length === 0) content.push({ type: "text", text: EMPTY_OUTPUT_PLACEHOLDER });
    return {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: safeToolId(message.toolCallId),
          content,
          is_error: message.isError,
        },
      ],
    };
  }
  return { role: "assistant", content: assistantBlocks(message) };
}

function assistantBlocks(message: AssistantMessage): Block[] {
  const blocks: Block[] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text !== "") blocks.push({ type: "text", text: block.text });
    // Thinking without a signature cannot be replayed to the API; it is dropped.
    if (block.type === "thinking" && block.redacted && block.signature) {
      blocks.push({ type: "redacted_thinking", data: block.signature });
    } else if (block.type === "thinking" && block.signature) {
      blocks.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
    }
    if (block.type === "toolCall") {
      blocks.push({
        type: "tool_use",
        id: safeToolId(block.id),
        name: block.name,
        input: block.arguments,
      });
    }
  }
  return blocks;
}
