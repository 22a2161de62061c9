/** The layered system prompt: sections, modes, per-turn facts stamp, skills list. */
export {
  formatTurnTime,
  renderTurnPrefix,
  safeTimezone,
  type TurnFacts,
} from "./dynamic-context.ts";
export { IDENTITY_LINE } from "./prompt-sections.ts";
export { type ListedSkill, renderSkillsList, type SkillsListMode } from "./skills-list.ts";
export {
  buildSystemPrompt,
  type PromptMode,
  type SystemPrompt,
  type SystemPromptInput,
} from "./system-prompt.ts";
