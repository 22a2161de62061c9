/**
 * Context management (SPEC §4–§6): the ContextEngine contract the agent loop codes
 * against, the default engine, token accounting, overflow detection and
 * the /context report.
 */

/** Overflow wording is recognized in one place: the providers' error classifier. */
export { isOverflowText as isContextOverflowMessage } from "../providers/index.ts";
export { BOOTSTRAP_PENDING_NOTE, type Destination } from "./bootstrap-destination.ts";
export { SUMMARY_PREFIX } from "./branch-messages.ts";
export { type BudgetCaps, type BudgetPlan, budgetCaps } from "./budget-planner.ts";
export type { CompactionEvent } from "./context-engine.ts";
export * from "./context-engine.ts";
export { type ContextReport, type FileReport, formatContextReport } from "./context-report.ts";
export {
  type ContextEngineFactory,
  createContextEngine,
} from "./create-context-engine.ts";
export { type ContextEngineDeps, DefaultContextEngine } from "./default-engine.ts";
export { estimateTextTokens, IMAGE_TOKENS } from "./estimate-tokens.ts";
export { ownText } from "./pending-message.ts";
export { HARD_CLEAR_TEXT, IMAGE_REMOVED_TEXT, MEDIA_REMOVED_TEXT } from "./prune-tool-results.ts";
export { MISSING_RESULT_TEXT } from "./repair-transcript.ts";
export type { ModelKind, RunKind } from "./run-kinds.ts";
export {
  createTokenCounter,
  estimateMessageTokens,
  estimatePromptTokens,
  estimateTokens,
  type TokenCounter,
} from "./token-counter.ts";
