/**
 * Builds the system prompt of one turn within the budget: loads bootstrap files,
 * decides their destinations, lists skills, measures tool schemas and degrades step by
 * step (compact skills list → shorter list → tighter bootstrap → fewer tools → no
 * skills) until the fixed parts leave history its floor. Everything above the cache
 * boundary depends only on session-stable inputs.
 */

import {
  buildSystemPrompt,
  type ListedSkill,
  type PromptMode,
  renderDynamicSection,
  renderSkillsList,
  type SystemPrompt,
  type TurnFacts,
} from "../prompt/index.ts";
import type { ToolDefinition } from "../providers/index.ts";
import {
  bootstrapFileNames,
  type FileCache,
  type InjectedFile,
  isEffectivelyEmpty,
  type LoadedWorkspace,
  limitBootstrapFiles,
  loadSkills,
  readBootstrapFiles,
  type SkillDir,
  type SkillEnvironment,
  type SkillSet,
} from "../workspace/index.ts";
import {
  bootstrapDestination,
  bootstrapUserBlock,
  type Destination,
  WORKSPACE_UNREACHABLE_NOTE,
} from "./bootstrap-destination.ts";
import { type BudgetCaps, bootstrapCharsFor, budgetCaps, fitTools } from "./budget-planner.ts";
import type { ModelKind, RunKind } from "./context-engine.ts";
import type { FileReport } from "./context-report.ts";
import type { TokenCounter } from "./token-counter.ts";

export interface PromptEnv {
  workspace: string;
  cache: FileCache;
  skillDirs: readonly SkillDir[];
  skillEnv: SkillEnvironment;
  guideDir: string;
  timezone: string;
  memoryEnabled: boolean;
  perFileMaxChars: number;
  totalMaxChars: number;
  reserveTokens: number;
  maxSkillsListed: number;
}

export interface PrepareRequest {
  modelKind: ModelKind;
  runKind: RunKind;
  promptMode?: PromptMode;
  model: { provider: string; model: string };
  contextWindow: number;
  tools: readonly ToolDefinition[];
  firstRun: boolean;
  /** Cloud models: rendered below the boundary. Local: caller puts it in the user message. */
  facts?: TurnFacts;
  addition?: string;
}

export interface PreparedPrompt {
  mode: PromptMode;
  system: SystemPrompt;
  /** Text that must lead the user message (bootstrap pending block), if any. */
  userBlock: string | undefined;
  workspace: LoadedWorkspace;
  files: FileReport[];
  memory: FileReport | undefined;
  skills: {
    set: SkillSet;
    listed: ListedSkill[];
    mode: "full" | "compact" | "none";
    omitted: string[];
    tokens: number;
  };
  tools: { kept: ToolDefinition[]; dropped: string[]; tokens: number[] };
  caps: BudgetCaps;
  systemTokens: number;
  bootstrapTokens: number;
  toolTokens: number;
  steps: string[];
}

const EMPTY_SKILLS: SkillSet = { available: [], hidden: [], shadowed: [] };

export async function preparePrompt(
  env: PromptEnv,
  req: PrepareRequest,
  counter: TokenCounter,
): Promise<PreparedPrompt> {
  const mode: PromptMode = req.promptMode ?? (req.runKind === "interactive" ? "full" : "minimal");
  const caps = budgetCaps(req.contextWindow, env.reserveTokens);
  const steps: string[] = [];
  const names = mode === "none" ? [] : bootstrapFileNames(mode === "full" ? "full" : "minimal");
  const workspace = readBootstrapFiles(env.workspace, names, env.cache);
  const destinations = new Map<string, Destination>();
  for (const file of workspace.files) {
    destinations.set(
      file.name,
      bootstrapDestination({
        name: file.name,
        present: !file.missing,
        modelKind: req.modelKind,
        runKind: req.runKind,
        firstRun: req.firstRun,
        effectivelyEmpty: file.text !== undefined && isEffectivelyEmpty(file.text),
      }),
    );
  }
  const injectable = workspace.files.filter((f) => destinations.get(f.name) !== "excluded");

  // Skills.
  const set = mode === "full" ? loadSkills(env.skillDirs, env.cache, env.skillEnv) : EMPTY_SKILLS;
  let listed: ListedSkill[] = set.available
    .slice(0, env.maxSkillsListed)
    .map((s) => ({ name: s.name, description: s.description, path: s.path }));
  const omitted = set.available.slice(env.maxSkillsListed).map((s) => s.name);
  let skillsMode: "full" | "compact" | "none" = listed.length > 0 ? "full" : "none";
  let skillsBlock = renderSkillsList(listed, "full");
  let skillsTokens = skillsBlock ? await counter.count(skillsBlock) : 0;
  if (skillsTokens > caps.skills) {
    skillsMode = "compact";
    skillsBlock = renderSkillsList(listed, "compact");
    skillsTokens = await counter.count(skillsBlock);
    steps.push("skills list without descriptions");
    while (skillsTokens > caps.skills && listed.length > 0) {
      const dropped = listed[listed.length - 1];
      if (dropped) omitted.push(dropped.name);
      listed = listed.slice(0, -1);
      skillsBlock = renderSkillsList(listed, "compact");
      skillsTokens = skillsBlock ? await counter.count(skillsBlock) : 0;
    }
    if (listed.length === 0) skillsMode = "none";
    else if (omitted.length > 0) steps.push(`skills list shortened to ${listed.length}`);
  }

  // Tools.
  const toolTokenList = await Promise.all(req.tools.map((t) => counter.count(JSON.stringify(t))));
  let toolCount = fitTools(toolTokenList, caps.tools);
  if (toolCount < req.tools.length)
    steps.push(`tool schemas cut to ${toolCount} of ${req.tools.length}`);

  // Bootstrap files.
  let totalChars = env.totalMaxChars;
  let limited = limitBootstrapFiles(injectable, env.perFileMaxChars, totalChars);
  let bootstrapTokens = await countFiles(limited, counter);
  if (bootstrapTokens > caps.bootstrap) {
    totalChars = bootstrapCharsFor(caps.bootstrap, sumChars(limited), bootstrapTokens);
    limited = limitBootstrapFiles(injectable, env.perFileMaxChars, totalChars);
    bootstrapTokens = await countFiles(limited, counter);
    steps.push(`bootstrap tightened to ${totalChars} chars`);
  }

  const render = (): SystemPrompt =>
    buildSystemPrompt({
      mode,
      toolNames: req.tools.slice(0, toolCount).map((t) => t.name),
      skillsBlock,
      memoryEnabled: env.memoryEnabled,
      workspace: env.workspace,
      workspaceReachable: workspace.reachable,
      guideDir: env.guideDir,
      timezone: env.timezone,
      model: { provider: req.model.provider, model: req.model.model, kind: req.modelKind },
      projectFiles: limited
        .filter((f) => destinations.get(f.name) === "system")
        .map((f) => ({ name: f.name, text: f.text })),
      missingFiles: workspace.reachable
        ? workspace.files.filter((f) => f.missing).map((f) => f.name)
        : [],
      ...(req.addition ? { addition: req.addition } : {}),
      ...(req.facts && req.modelKind === "cloud"
        ? { dynamic: renderDynamicSection(req.facts) }
        : {}),
    });
  let system = render();
  let systemTokens = await counter.count(system.text);
  const toolSum = () => toolTokenList.slice(0, toolCount).reduce((a, b) => a + b, 0);
  const userBootstrapTokens = async () => {
    const f = limited.find((x) => destinations.get(x.name) === "user");
    return f ? counter.count(f.text) : 0;
  };
  let fixed = systemTokens + toolSum() + (await userBootstrapTokens());
  // Still too big for the history floor: cut bootstrap, then skills, then tools.
  for (let round = 0; round < 4 && caps.available - fixed < caps.historyFloor; round++) {
    const deficit = caps.historyFloor - (caps.available - fixed);
    if (round === 0 && bootstrapTokens > 0) {
      const target = Math.max(0, bootstrapTokens - deficit);
      totalChars = bootstrapCharsFor(target, sumChars(limited), bootstrapTokens);
      limited = limitBootstrapFiles(injectable, env.perFileMaxChars, totalChars);
      bootstrapTokens = await countFiles(limited, counter);
      steps.push(`bootstrap tightened to ${totalChars} chars for history`);
    } else if (round === 1 && skillsBlock) {
      for (const s of listed) omitted.push(s.name);
      listed = [];
      skillsBlock = "";
      skillsMode = "none";
      steps.push("skills list dropped");
    } else if (round === 2 && toolCount > 0) {
      const before = toolCount;
      toolCount = fitTools(toolTokenList, Math.max(0, toolSum() - deficit));
      if (toolCount < before)
        steps.push(`tool schemas cut to ${toolCount} of ${req.tools.length} for history`);
    } else {
      continue;
    }
    system = render();
    systemTokens = await counter.count(system.text);
    fixed = systemTokens + toolSum() + (await userBootstrapTokens());
  }

  const files: FileReport[] = workspace.files.map((raw) => {
    const lim = limited.find((l) => l.name === raw.name);
    const destination = destinations.get(raw.name) ?? "excluded";
    return {
      name: raw.name,
      path: raw.path,
      rawChars: raw.text?.length ?? 0,
      injectedChars: destination === "excluded" ? 0 : (lim?.injectedChars ?? 0),
      truncated: destination === "excluded" ? false : (lim?.truncated ?? false),
      destination,
      missing: raw.missing,
    };
  });
  const userFile = limited.find((f) => destinations.get(f.name) === "user");
  const interactiveFirst = req.runKind === "interactive" && req.firstRun && mode !== "none";
  const userBlock = userFile
    ? bootstrapUserBlock(userFile.text)
    : !workspace.reachable && interactiveFirst && req.modelKind === "local"
      ? WORKSPACE_UNREACHABLE_NOTE
      : undefined;
  return {
    mode,
    system,
    userBlock,
    workspace,
    files,
    memory: files.find((f) => f.name === "MEMORY.md" && !f.missing),
    skills: { set, listed, mode: skillsMode, omitted, tokens: skillsTokens },
    tools: {
      kept: req.tools.slice(0, toolCount),
      dropped: req.tools.slice(toolCount).map((t) => t.name),
      tokens: toolTokenList.slice(0, toolCount),
    },
    caps,
    systemTokens,
    bootstrapTokens,
    toolTokens: toolSum(),
    steps,
  };
}

const sumChars = (files: readonly InjectedFile[]): number =>
  files.reduce((a, f) => a + f.injectedChars, 0);

async function countFiles(files: readonly InjectedFile[], counter: TokenCounter): Promise<number> {
  const text = files.map((f) => f.text).join("\n\n");
  return text ? counter.count(text) : 0;
}
