/**
 * What kind of run and model a context is assembled for: the two words every part of
 * the context area branches on (where BOOTSTRAP.md goes, how much a tool result costs).
 * A leaf: it imports nothing, so the engine's contract and its helpers can share it
 * without importing each other.
 */
export type RunKind = "interactive" | "subagent" | "cron" | "heartbeat";
export type ModelKind = "local" | "cloud";
