/**
 * Which model the agent uses, changed while it runs: the console or `/model` picks a
 * primary for the next runs (until restart), and a changed config file (a model pulled
 * by another process) swaps the `models` section, dropping only the providers whose entry
 * changed so the others keep their loaded weights. A dropped provider is disposed only once
 * the agent is idle: a turn already running on it finishes on it.
 */
import type { ModelsConfig } from "../config/index.ts";
import { ClawboxError } from "../errors/index.ts";
import type { Logger } from "../system/index.ts";
import type { ModelsHolder, ProviderCache } from "./provider-source.ts";

export interface ModelSelection {
  /** Per provider id in the fallback chain: unloaded | loading | ready | error. */
  modelState(): Record<string, string>;
  /** The provider id the next run tries first. */
  primaryModel(): string;
  /**
   * Makes `id` (a key of `models.providers`) the primary model for the next runs, until
   * restart (the config file is not changed). Throws CONFIG_INVALID for an unknown id.
   */
  selectModel(id: string): void;
  /**
   * Takes a new `models` config section (after the config file changed): providers whose
   * entry changed are dropped and rebuilt on their next use, so a pulled model is picked
   * up without a restart. Returns the ids that changed.
   */
  reloadModels(models: ModelsConfig): string[];
}

export function createModelSelection(
  /** Its `models` is replaced on reload and its `primary` set by selectModel. */
  config: ModelsHolder,
  providers: ProviderCache,
  logger: Logger,
  /** Resolves when no run is running or queued. */
  idle: () => Promise<void>,
): ModelSelection {
  return {
    modelState() {
      const created = new Map(providers.created().map((provider) => [provider.id, provider]));
      return Object.fromEntries(
        providers
          .chainIds()
          .map((id) => [
            id,
            created.get(id)?.state?.() ?? (created.has(id) ? "ready" : "unloaded"),
          ]),
      );
    },
    primaryModel: () => config.models.primary,
    selectModel(id) {
      if (!Object.hasOwn(config.models.providers, id)) {
        throw new ClawboxError("CONFIG_INVALID", `models.providers: no model named "${id}"`, {
          hint: `choose one of: ${Object.keys(config.models.providers).join(", ")}`,
        });
      }
      // The loop, its logs and /status all read models.primary: switching it here switches them all.
      config.models.primary = id;
    },
    reloadModels(models) {
      const before = config.models;
      const ids = new Set([...Object.keys(before.providers), ...Object.keys(models.providers)]);
      const changed = [...ids].filter(
        (id) => JSON.stringify(before.providers[id]) !== JSON.stringify(models.providers[id]),
      );
      config.models = models;
      const stale = providers.reset(changed);
      // New runs get fresh providers at once; running ones keep theirs until they end.
      if (stale.length > 0) {
        void idle().then(() => Promise.allSettled(stale.map((provider) => provider.dispose?.())));
      }
      if (changed.length > 0) logger.info("model settings reloaded", { changed });
      return changed;
    },
  };
}
