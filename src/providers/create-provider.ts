/**
 * Builds a provider from its config entry. Callers keep one instance per id for the
 * life of the process (the agent's provider cache), so a local model stays loaded.
 */
import type { ProviderConfig } from "../config/index.ts";
import type { Logger } from "../system/index.ts";
import { AnthropicProvider } from "./anthropic/anthropic-provider.ts";
import { LocalProvider } from "./local/local-provider.ts";
import { OpenAIProvider } from "./openai/openai-provider.ts";
import type { Provider } from "./provider.ts";

export interface ProviderDeps {
  logger?: Logger;
  /** HTTP client for remote providers (tests may pass their own). */
  fetch?: typeof fetch;
  /** Clock for auth-profile cooldowns, epoch ms. */
  now?: () => number;
  /** Local providers: where KV-cache states are saved (`<home>/cache/kv`); none: not saved. */
  kvCacheDir?: string;
}

/** A provider for config entry `id`; nothing is loaded or connected until first use. */
export function createProvider(
  id: string,
  config: ProviderConfig,
  deps: ProviderDeps = {},
): Provider {
  switch (config.kind) {
    case "local":
      return new LocalProvider(id, config, deps);
    case "openai":
      return new OpenAIProvider(id, config, deps);
    case "anthropic":
      return new AnthropicProvider(id, config, deps);
  }
}
