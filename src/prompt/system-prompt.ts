/**
 * Builds the system prompt from sections in a fixed order. Modes: `full` (main agent),
 * `minimal` (subagent/cron/heartbeat: no skills, memory, messaging, heartbeats),
 * `none` (identity line only); the budget planner may omit further sections by name on
 * small windows. The text depends only on its session-stable inputs, so two turns with
 * the same inputs produce byte-identical prompts: nothing per turn (time, sender,
 * message id) is an input here; those facts lead the user message (dynamic-context.ts).
 */
import {
  documentationSection,
  HEARTBEAT_SECTION,
  IDENTITY_LINE,
  MEMORY_SECTION,
  MESSAGING_SECTION,
  projectContextSection,
  runtimeSection,
  SAFETY_SECTION,
  skillsSection,
  timezoneSection,
  toolingSection,
  workspaceSection,
} from "./prompt-sections.ts";

export type PromptMode = "full" | "minimal" | "none";

export interface SystemPromptInput {
  mode: PromptMode;
  toolNames: readonly string[];
  /** Rendered `<available_skills>` block, or "" */
  skillsBlock: string;
  memoryEnabled: boolean;
  workspace: string;
  /**
   * A stranger's (or a group chat's) prompt: no absolute path, no location outside the
   * workspace (the user guide section is left out; strangers cannot read it).
   */
  stranger?: boolean;
  workspaceReachable: boolean;
  /** Folder of clawbox's user guide. */
  guideDir: string;
  timezone: string;
  model: { provider: string; model: string; kind: string };
  /** Bootstrap files destined for the system prompt, already limited. */
  projectFiles: readonly { name: string; text: string }[];
  missingFiles: readonly string[];
  /** Extra stable text from another engine or caller (placed before project context). */
  addition?: string;
  /** Sections left out by the budget planner (e.g. "documentation", "heartbeats"). */
  omit?: readonly string[];
}

export interface SystemPrompt {
  text: string;
  /** Char offset where a per-turn suffix would start: the whole text is stable. */
  cacheBoundary: number;
  prefix: string;
  /** Chars per section, for reports. */
  sections: { name: string; chars: number }[];
}

export function buildSystemPrompt(input: SystemPromptInput): SystemPrompt {
  const sections: { name: string; text: string }[] = [{ name: "identity", text: IDENTITY_LINE }];
  if (input.mode !== "none") {
    const full = input.mode === "full";
    sections.push({ name: "tooling", text: toolingSection(input.toolNames) });
    sections.push({ name: "safety", text: SAFETY_SECTION });
    if (full) sections.push({ name: "skills", text: skillsSection(input.skillsBlock) });
    if (full && input.memoryEnabled) sections.push({ name: "memory", text: MEMORY_SECTION });
    sections.push({
      name: "workspace",
      text: workspaceSection(
        input.stranger ? undefined : input.workspace,
        input.workspaceReachable,
      ),
    });
    if (!input.stranger)
      sections.push({ name: "documentation", text: documentationSection(input.guideDir) });
    sections.push({ name: "timezone", text: timezoneSection(input.timezone) });
    if (full) sections.push({ name: "messaging", text: MESSAGING_SECTION });
    if (full) sections.push({ name: "heartbeats", text: HEARTBEAT_SECTION });
    sections.push({ name: "runtime", text: runtimeSection(input.model) });
    if (input.addition) sections.push({ name: "addition", text: input.addition });
    sections.push({
      name: "project",
      text: projectContextSection(input.projectFiles, input.missingFiles),
    });
  }
  const omit = new Set(input.omit ?? []);
  const kept = sections.filter((s) => s.text.length > 0 && !omit.has(s.name));
  const prefix = `${kept.map((s) => s.text).join("\n\n")}\n`;
  return {
    text: prefix,
    cacheBoundary: prefix.length,
    prefix,
    sections: kept.map((s) => ({ name: s.name, chars: s.text.length })),
  };
}
