/**
 * What differs between OpenAI-compatible servers beyond the tool-schema dialect: the
 * name of the output-token limit, how a thinking level is asked for, and whether
 * reasoning text must be sent back. Chosen by `models.providers.<id>.flavor`, or guessed
 * from the base URL when it is "auto". Sources: OpenAI's chat-completions reference
 * (`max_completion_tokens`, `reasoning_effort`; o-series and gpt-5 reject `max_tokens`),
 * DashScope's Qwen3 docs (`enable_thinking`, `thinking_budget`), DeepSeek's thinking-mode
 * guide (`thinking: {type}`; reasoning_content of tool-calling turns must be sent back),
 * llama.cpp's server README (`chat_template_kwargs`), Ollama's OpenAI compatibility page.
 */
import type { OpenAIProviderConfig } from "../../config/index.ts";
import type { ThinkingLevel } from "../provider.ts";
import { dialectForBaseUrl, type SchemaDialect } from "../tool-schema.ts";

export type OpenAIFlavor = SchemaDialect | "deepseek";

export function resolveFlavor(config: OpenAIProviderConfig): OpenAIFlavor {
  if (config.flavor && config.flavor !== "auto") return config.flavor;
  if (config.baseUrl.toLowerCase().includes("deepseek")) return "deepseek";
  return dialectForBaseUrl(config.baseUrl);
}

/** The tool-schema dialect of a flavor (DeepSeek takes OpenAI's schemas). */
export function schemaDialect(flavor: OpenAIFlavor): SchemaDialect {
  return flavor === "deepseek" ? "openai" : flavor;
}

/**
 * `max_completion_tokens` for OpenAI's own API and its reasoning models (o1, o3, o4,
 * gpt-5 reject `max_tokens`), `max_tokens` everywhere else (most compatible servers
 * know only that one). `maxTokensField` in the config overrides the guess.
 */
export function maxTokensField(
  config: OpenAIProviderConfig,
): "max_tokens" | "max_completion_tokens" {
  if (config.maxTokensField) return config.maxTokensField;
  const reasoningModel = /^(o\d|gpt-5)/i.test(config.model.replace(/^.*\//, ""));
  return reasoningModel || /\/\/api\.openai\.com\b/i.test(config.baseUrl)
    ? "max_completion_tokens"
    : "max_tokens";
}

const QWEN_BUDGET: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 512,
  low: 2048,
  medium: 8192,
  high: 16384,
};

/** Request fields that ask `flavor` for `level` of thinking (none when no level is set). */
export function thinkingFields(
  flavor: OpenAIFlavor,
  level: ThinkingLevel | undefined,
): Record<string, unknown> {
  if (level === undefined) return {};
  const on = level !== "off";
  switch (flavor) {
    case "qwen":
      return on
        ? { enable_thinking: true, thinking_budget: QWEN_BUDGET[level] }
        : { enable_thinking: false };
    case "deepseek":
      return on
        ? { thinking: { type: "enabled" }, reasoning_effort: level === "high" ? "high" : "low" }
        : { thinking: { type: "disabled" } };
    case "llama-server":
      return { chat_template_kwargs: { enable_thinking: on } };
    case "minimax":
      return {};
    default:
      return on ? { reasoning_effort: level } : {};
  }
}

/** DeepSeek's thinking mode rejects a tool loop whose reasoning_content was dropped. */
export function replaysReasoning(flavor: OpenAIFlavor): boolean {
  return flavor === "deepseek";
}
