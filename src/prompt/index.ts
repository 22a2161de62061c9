/** The layered system prompt: sections, modes, cache boundary, per-turn facts, skills list. */
export {
  formatTurnTime,
  renderDynamicSection,
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
