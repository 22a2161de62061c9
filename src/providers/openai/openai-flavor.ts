/**
 * What differs between OpenAI-compatible servers beyond the tool-schema dialect: the
 * name of the output-token limit, how a thinking level is asked for, and whether
 * reasoning text must be sent back. Chosen by `models.providers.<id>.flavor`, or guessed
 * from the base URL when it is "auto". Sources: OpenAI's chat-completions reference
 * (`max_completion_tokens`, `reasoning_effort`; o-series and gpt-5 reject `max_tokens`),
 * DashScope's Qwen3 docs (`enable_thinking`, `thinking_budget`), DeepSeek's thinking-mode
 * guide (`thinking: {type}`; reasoning_content of tool-calling turns must be sent back),
 * llama.cpp's server README (`chat_template_kwargs`), Ollama's OpenAI layer
 * (openai/openai.go: `reasoning_effort` high|medium|low|none before v0.32.11, anything else
 * answered 400 "invalid reasoning value"; "none" is think=false, no value lets a thinking
 * model think).
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

/** OpenAI's reasoning models by name (o1, o3, o4-mini, gpt-5…), also behind a gateway prefix. */
function isOpenAIReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5)/i.test(model.replace(/^.*\//, ""));
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
  return isOpenAIReasoningModel(config.model) || /\/\/api\.openai\.com\b/i.test(config.baseUrl)
    ? "max_completion_tokens"
    : "max_tokens";
}

/**
 * Whether a sampling temperature may be sent. OpenAI's reasoning models accept only the
 * default (any other value is answered 400 "Unsupported value: 'temperature' does not
 * support 0.7 with this model. Only the default (1) value is supported."); the gpt-5 chat
 * models are not reasoning models and take one.
 */
export function acceptsTemperature(model: string): boolean {
  return !isOpenAIReasoningModel(model) || /^gpt-5[^/]*-chat/i.test(model.replace(/^.*\//, ""));
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
    case "ollama":
      // Ollama before v0.32.11 knows high|medium|low|none only; "none" turns thinking off
      // (without it a thinking model thinks by default).
      return { reasoning_effort: on ? (level === "minimal" ? "low" : level) : "none" };
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
