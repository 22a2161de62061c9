/**
 * Where the agent gets its model providers: given by the caller (tests, the lead's
 * composition root) as a map or lookup function, or built lazily from the config by
 * the providers area's `createProvider` on first use, so startup never loads a model.
 */
import type { ClawboxConfig } from "../config/index.ts";
import type { Provider } from "../providers/index.ts";
import * as providersArea from "../providers/index.ts";
import type { HomePaths, Logger } from "../system/index.ts";

export type ProviderLookup = (id: string) => Provider | undefined;
export type ProviderSource = Record<string, Provider> | ProviderLookup;

export interface ProviderCache {
  get(id: string): Provider | undefined;
  /** Providers created so far (for /health and dispose). */
  created(): Provider[];
  /** Ids in the fallback chain: primary, then fallbacks, without duplicates. */
  chainIds(): string[];
}

type CreateProvider = (
  id: string,
  config: ClawboxConfig,
  deps: { logger: Logger; paths: HomePaths },
) => Provider;

function factoryFromArea(): CreateProvider | undefined {
  const candidate = (providersArea as unknown as Record<string, unknown>).createProvider;
  return typeof candidate === "function" ? (candidate as CreateProvider) : undefined;
}

export function createProviderCache(
  source: ProviderSource | undefined,
  config: ClawboxConfig,
  deps: { logger: Logger; paths: HomePaths },
): ProviderCache {
  const cache = new Map<string, Provider>();
  const lookup: ProviderLookup =
    typeof source === "function"
      ? source
      : source
        ? (id) => source[id]
        : (id) => {
            const create = factoryFromArea();
            if (!create || !config.models.providers[id]) return undefined;
            return create(id, config, deps);
          };
  return {
    get(id) {
      const hit = cache.get(id);
      if (hit) return hit;
      let provider: Provider | undefined;
      try {
        provider = lookup(id);
      } catch (error) {
        deps.logger.error(`cannot create model provider "${id}"`, {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      if (provider) cache.set(id, provider);
      return provider;
    },
    created: () => [...cache.values()],
    chainIds: () => [...new Set([config.models.primary, ...config.models.fallbacks])],
  };
}
