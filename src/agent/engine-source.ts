/**
 * The context engine the agent uses: the caller's, else the context area's default
 * engine (`createContextEngine`), loaded on the first run so startup stays light.
 */
import type { ClawboxConfig } from "../config/index.ts";
import type { ContextEngine } from "../context/context-engine.ts";
import { ClawboxError } from "../errors/index.ts";
import type { Store } from "../store/index.ts";
import type { HomePaths, Logger } from "../system/index.ts";

export interface EngineDeps {
  config: ClawboxConfig;
  store: Store;
  paths: HomePaths;
  logger: Logger;
}

type CreateContextEngine = (deps: EngineDeps) => ContextEngine;

const CONTEXT_AREA = "../context/index.ts";

/** The context area's exports, or an empty record when it cannot be loaded. */
export async function loadContextArea(): Promise<Record<string, unknown>> {
  return (await import(CONTEXT_AREA).catch(() => ({}))) as Record<string, unknown>;
}

export function createEngineSource(
  given: ContextEngine | undefined,
  deps: EngineDeps,
): () => Promise<ContextEngine> {
  let engine: Promise<ContextEngine> | undefined = given ? Promise.resolve(given) : undefined;
  return () => {
    if (!engine) {
      engine = (async () => {
        const area = await loadContextArea();
        const create = area.createContextEngine;
        if (typeof create !== "function") {
          throw new ClawboxError(
            "INTERNAL",
            "no context engine is available (src/context has no createContextEngine)",
          );
        }
        return (create as CreateContextEngine)(deps);
      })();
      engine.catch(() => {
        engine = undefined;
      });
    }
    return engine;
  };
}
