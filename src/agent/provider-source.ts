/**
 * Where the agent gets its model providers: given by the caller (tests, the composition
 * root) as a map or a lookup function, or built lazily from the
 * config by the providers area's `createProvider` on first use, so startup never loads
 * a model.
 */
import type { ModelsConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import { createProvider, type Provider } from "../providers/index.ts";
import type { Logger } from "../system/index.ts";

export type ProviderLookup = (id: string) => Provider | undefined;
export type ProviderSource = Record<string, Provider> | ProviderLookup;

/** The holder of the `models` section, read on each use (a config reload replaces it). */
export interface ModelsHolder {
  models: ModelsConfig;
}

export interface ProviderCache {
  get(id: string): Provider | undefined;
  /** Providers created so far (for /health and dispose). */
  created(): Provider[];
  /** Ids in the fallback chain: primary, then fallbacks, without duplicates. */
  chainIds(): string[];
  /** Ids of the configured local models (`models.providers.<id>.kind: "local"`). */
  localIds(): string[];
  /** A configured local model by id (`/v1` as a plain model server); undefined otherwise. */
  local(id: string): Provider | undefined;
  /** Forgets the providers with these ids (rebuilt from config on next use); returns them. */
  reset(ids: string[]): Provider[];
}

function lookupOf(
  source: ProviderSource | undefined,
  config: ModelsHolder,
  logger: Logger,
  kvCacheDir: string,
): ProviderLookup {
  if (typeof source === "function") return source;
  if (source) return (id) => source[id];
  return (id) => {
    const entry = config.models.providers[id];
    return entry
      ? createProvider(id, entry, { logger: logger.child(`provider:${id}`), kvCacheDir })
      : undefined;
  };
}

export function createProviderCache(
  source: ProviderSource | undefined,
  config: ModelsHolder,
  logger: Logger,
  kvCacheDir: string,
): ProviderCache {
  const cache = new Map<string, Provider>();
  const lookup = lookupOf(source, config, logger, kvCacheDir);
  return {
    get(id) {
      const hit = cache.get(id);
      if (hit) return hit;
      let provider: Provider | undefined;
      try {
        provider = lookup(id);
      } catch (error) {
        logger.error(`cannot create model provider "${id}"`, {
          error: errorMessage(error),
        });
      }
      if (provider) cache.set(id, provider);
      return provider;
    },
    created: () => [...cache.values()],
    chainIds: () => [...new Set([config.models.primary, ...config.models.fallbacks])],
    localIds: () =>
      Object.entries(config.models.providers)
        .filter(([, provider]) => provider.kind === "local")
        .map(([id]) => id),
    local(id) {
      const entry = Object.hasOwn(config.models.providers, id)
        ? config.models.providers[id]
        : undefined;
      return entry?.kind === "local" ? this.get(id) : undefined;
    },
    reset(ids) {
      const removed: Provider[] = [];
      for (const id of ids) {
        const hit = cache.get(id);
        if (hit) removed.push(hit);
        cache.delete(id);
      }
      return removed;
    },
  };
}
