/**
 * Builds providers from config and keeps one instance per id for the life of the
 * process (a local model stays loaded between turns); `dispose` releases them all.
 */
import type { ModelsConfig, ProviderConfig } from "../config/sections/models.ts";
import { ClawboxError } from "../errors/index.ts";
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

export class ProviderRegistry {
  private readonly providers = new Map<string, Provider>();

  constructor(
    private readonly models: ModelsConfig,
    private readonly deps: ProviderDeps = {},
  ) {}

  /** The provider for `id`, created on first request. Throws CONFIG_INVALID for an unknown id. */
  get(id: string): Provider {
    const existing = this.providers.get(id);
    if (existing) return existing;
    const config = this.models.providers[id];
    if (!config) {
      const known = Object.keys(this.models.providers).join(", ") || "none";
      throw new ClawboxError(
        "CONFIG_INVALID",
        `models: no provider "${id}" in models.providers (known: ${known})`,
      );
    }
    const provider = createProvider(id, config, this.deps);
    this.providers.set(id, provider);
    return provider;
  }

  /** Registers a ready-made provider under `id` (e.g. the scripted fake in tests). */
  set(id: string, provider: Provider): void {
    this.providers.set(id, provider);
  }

  /** Primary first, then the fallbacks, in config order. */
  chain(): Provider[] {
    return [this.models.primary, ...this.models.fallbacks].map((id) => this.get(id));
  }

  /** Providers created so far (for /health). */
  created(): Provider[] {
    return [...this.providers.values()];
  }

  async dispose(): Promise<void> {
    const all = [...this.providers.values()];
    this.providers.clear();
    await Promise.allSettled(all.map((provider) => provider.dispose?.()));
  }
}
