/** What the OpenAI-compatible provider tests share: a config pointed at a fake, and a request. */
import type { OpenAIProviderConfig } from "../../src/config/index.ts";
import type { ProviderRequest } from "../../src/providers/index.ts";

/** One user message ("hi") with a `read_file` tool on offer. */
export const hiWithReadFile: ProviderRequest = {
  systemPrompt: "sys",
  messages: [{ role: "user", content: "hi", timestamp: 0 }],
  tools: [
    {
      name: "read_file",
      description: "read a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    },
  ],
};

/** A complete OpenAI-compatible provider config for tests, pointed at `baseUrl`. */
export function openaiProviderConfig(
  baseUrl: string,
  overrides: Partial<OpenAIProviderConfig> = {},
): OpenAIProviderConfig {
  return {
    kind: "openai",
    baseUrl,
    model: "some-model",
    authProfiles: [{ id: "only", apiKey: "key-one-000000" }],
    contextWindow: 8192,
    maxTokens: 256,
    timeoutMs: 2000,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    ...overrides,
  };
}

/**
 * A clawbox.json whose one model is the OpenAI-compatible fake at `baseUrl` (memory off),
 * for tests that run the real `clawbox` program against it. `extra` adds top-level keys.
 */
export function cloudOnlyConfig(baseUrl: string, extra: Record<string, unknown> = {}) {
  return {
    models: {
      primary: "cloud",
      fallbacks: [],
      providers: { cloud: openaiProviderConfig(baseUrl, { timeoutMs: 30_000 }) },
    },
    memory: { enabled: false },
    ...extra,
  };
}
