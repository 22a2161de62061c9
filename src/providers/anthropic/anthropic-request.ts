/**
 * Translates a ProviderRequest into an Anthropic Messages body. The system prompt is
 * split at the cache boundary: the stable prefix carries `cache_control: ephemeral`, the
 * dynamic rest follows uncached, so per-turn data never invalidates the cached prefix.
 * Tool results become `tool_result` blocks in user turns; consecutive same-role turns
 * are merged because the API requires alternation. Tool-call ids are made API-safe.
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
  if (level && level !== "off") {
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

function wireMessages(messages: Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages) {
    const wire = toWire(message);
    if (wire.content.length === 0) continue;
    const last = out.at(-1);
    if (last && last.role === wire.role) last.content.push(...wire.content);
    else out.push(wire);
  }
  return out;
}

function toWire(message: Message): WireMessage {
  if (message.role === "user") {
    const content: Block[] =
      typeof message.content === "string"
        ? message.content === ""
          ? []
          : [{ type: "text", text: message.content }]
        : message.content.map((block) =>
            block.type === "text"
              ? { type: "text", text: block.text }
              : {
                  type: "image",
                  source: { type: "base64", media_type: block.mimeType, data: block.data },
                },
          );
    return { role: "user", content };
  }
  if (message.role === "toolResult") {
    const content = message.content.map((block) =>
      block.type === "text"
        ? { type: "text", text: block.text }
        : {
            type: "image",
            source: { type: "base64", media_type: block.mimeType, data: block.data },
          },
    );
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
    if (block.type === "thinking" && block.signature) {
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
