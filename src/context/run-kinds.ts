/**
 * What kind of run and model a context is assembled for: the two words every part of
 * the context area branches on (where BOOTSTRAP.md goes, how much a tool result costs).
 * (The model kind is the provider's to say: providers/prompt-overhead.ts.) A leaf of
 * types, so the engine's contract and its helpers can share it
 * without importing each other.
 */
export type RunKind = "interactive" | "subagent" | "cron" | "heartbeat";
export type { ModelKind } from "../providers/index.ts";
