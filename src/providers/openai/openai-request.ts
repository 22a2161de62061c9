/**
 * Translates a ProviderRequest into an OpenAI chat-completions body: system prompt as
 * the first message, tool calls with JSON-string arguments, tool results as `tool`
 * messages, images as data URLs, and usage requested in the stream. The flavor decides
 * the token-limit field, the thinking parameters and whether reasoning is sent back.
 */
import type { OpenAIProviderConfig } from "../../config/index.ts";
import type { Message } from "../../messages/index.ts";
import type { ProviderRequest } from "../provider.ts";
import { normalizeToolSchema } from "../tool-schema.ts";
import {
  acceptsTemperature,
  maxTokensField,
  type OpenAIFlavor,
  replaysReasoning,
  schemaDialect,
  thinkingFields,
} from "./openai-flavor.ts";

type WireContent =
  | string
  | ({ type: "text"; text: string } | { type: "image_url"; image_url: { url: string } })[];

export function openaiBody(
  request: ProviderRequest,
  config: OpenAIProviderConfig,
  flavor: OpenAIFlavor,
): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  if (request.systemPrompt !== "") messages.push({ role: "system", content: request.systemPrompt });
  const withReasoning = replaysReasoning(flavor);
  for (const message of request.messages) messages.push(...wireMessage(message, withReasoning));
  const body: Record<string, unknown> = {
    model: config.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    [maxTokensField(config)]: request.maxTokens ?? config.maxTokens,
    ...thinkingFields(flavor, request.thinkingLevel),
  };
  const temperature = request.temperature ?? config.temperature;
  if (temperature !== undefined && acceptsTemperature(config.model)) body.temperature = temperature;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: normalizeToolSchema(tool.parameters, schemaDialect(flavor)),
      },
    }));
    if (request.toolChoice === "required") body.tool_choice = "required";
  }
  return body;
}

function wireMessage(message: Message, withReasoning: boolean): Record<string, unknown>[] {
  if (message.role === "user") return [{ role: "user", content: wireContent(message.content) }];
  if (message.role === "toolResult") {
    const text = message.content
      .map((block) => (block.type === "text" ? block.text : "[image]"))
      .join("");
    return [{ role: "tool", tool_call_id: message.toolCallId, content: text }];
  }
  const text = message.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("");
  const calls = message.content.flatMap((block) =>
    block.type === "toolCall"
      ? [
          {
            id: block.id,
            type: "function",
            function: { name: block.name, arguments: JSON.stringify(block.arguments) },
          },
        ]
      : [],
  );
  if (text === "" && calls.length === 0) return [];
  // DeepSeek thinking mode: every turn that called tools carries `reasoning_content` in
  // every later request (400 when it is missing): its own reasoning, or "" for a turn
  // another model produced, which has none to give.
  const reasoning =
    withReasoning && calls.length > 0
      ? message.content
          .flatMap((block) =>
            block.type === "thinking" && !block.redacted ? [block.thinking] : [],
          )
          .join("")
      : undefined;
  return [
    {
      role: "assistant",
      content: text === "" ? null : text,
      ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    },
  ];
}

function wireContent(content: Message["content"]): WireContent {
  if (typeof content === "string") return content;
  const parts: Exclude<WireContent, string> = [];
  for (const block of content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image")
      parts.push({
        type: "image_url",
        image_url: { url: `data:${block.mimeType};base64,${block.data}` },
      });
  }
  return parts;
}
