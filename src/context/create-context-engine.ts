/**
 * Chooses the context engine named by `context.engine`. Engines register a factory
 * here; an unknown id is a configuration error naming the known ones.
 */
import { ClawboxError } from "../errors/index.ts";
import type { ContextEngine } from "./context-engine.ts";
import { type ContextEngineDeps, DefaultContextEngine } from "./default-engine.ts";

export type ContextEngineFactory = (deps: ContextEngineDeps) => ContextEngine;

const FACTORIES = new Map<string, ContextEngineFactory>([
  ["default", (deps) => new DefaultContextEngine(deps)],
]);

export function createContextEngine(deps: ContextEngineDeps): ContextEngine {
  const id = deps.config.context.engine;
  const factory = FACTORIES.get(id);
  if (!factory) {
    throw new ClawboxError("CONFIG_INVALID", `context.engine: unknown engine "${id}"`, {
      hint: `known engines: ${[...FACTORIES.keys()].join(", ")}`,
    });
  }
  return factory(deps);
}
