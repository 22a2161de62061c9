/**
 * The context engine the agent uses: the caller's, else the one `context.engine` names
 * (the context area's `createContextEngine`), created on the first run so startup
 * stays light. A failure to create it is retried on the next run.
 */
import {
  type ContextEngine,
  type ContextEngineDeps,
  createContextEngine,
} from "../context/index.ts";
import type { Store } from "../store/index.ts";
import type { HomePaths, Logger } from "../system/index.ts";

export interface EngineDeps {
  config: ContextEngineDeps["config"];
  store: Store;
  paths: HomePaths;
  logger: Logger;
  /** Whether a stranger may read a file (their prompt lists only such skills). */
  strangerMayRead?: (path: string) => boolean;
}

export interface EngineSource {
  get(): Promise<ContextEngine>;
  /** The engine's per-session caches of sessions idle for `idleMs` (none created for this). */
  trim(idleMs: number): void;
  /** Disposes the engine if this source created it (a caller's engine is the caller's). */
  dispose(): void;
}

export function createEngineSource(
  given: ContextEngine | undefined,
  deps: EngineDeps,
): EngineSource {
  let created: ContextEngine | undefined;
  return {
    async get() {
      if (given) return given;
      created ??= createContextEngine(deps);
      return created;
    },
    trim(idleMs) {
      (given ?? created)?.trim?.(idleMs);
    },
    dispose() {
      created?.dispose?.();
      created = undefined;
    },
  };
}
