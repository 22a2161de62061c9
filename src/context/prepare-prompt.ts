/**
 * Builds the system prompt of one turn within the budget: loads bootstrap files,
 * decides their destinations, lists skills, measures tool schemas against their caps
 * (compact skills list → shorter list → fewer tools → tighter bootstrap), then runs the
 * degradation ladder (degrade-prompt.ts) until the fixed parts leave history its floor.
 * The system prompt and the kept tools depend only on session-stable inputs and the
 * window, never on history, the clock or the per-turn message (whose facts lead the
 * user message instead), so a session's turns send them byte-identical.
 */

import { relative, resolve, sep } from "node:path";
import {
  buildSystemPrompt,
  type ListedSkill,
  type PromptMode,
  renderSkillsList,
  type SystemPrompt,
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
  PRIVATE_BOOTSTRAP_FILES,
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
import type { FileReport } from "./context-report.ts";
import { degradePrompt, type PromptShape } from "./degrade-prompt.ts";
import type { ModelKind, RunKind } from "./run-kinds.ts";
import { type TemplateOverhead, templateOverhead } from "./template-overhead.ts";
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
  /**
   * Whether a stranger may `read` a file (the owner-file rules of the tools area). A
   * stranger's prompt lists only the skills whose SKILL.md passes; without it, none.
   */
  strangerMayRead?: (path: string) => boolean;
}

export interface PrepareRequest {
  modelKind: ModelKind;
  runKind: RunKind;
  promptMode?: PromptMode;
  /**
   * False: a stranger's or a group chat's prompt. Leaves out the owner's private files
   * (MEMORY.md, USER.md), every absolute path and location outside the workspace, and
   * the skills a stranger may not read (docs/SECURITY.md, issue 37 item 5).
   */
  privateFiles?: boolean;
  model: { provider: string; model: string };
  contextWindow: number;
  tools: readonly ToolDefinition[];
  firstRun: boolean;
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
  overhead: TemplateOverhead;
  /** The user-destined BOOTSTRAP.md as limited, when it leads the user message. */
  userFile?: InjectedFile;
  /** The system prompt's tokens. */
  systemTokens: number;
  bootstrapTokens: number;
  toolTokens: number;
  fixedTokens: number;
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
  const overhead = await templateOverhead(counter, req.modelKind);
  const steps: string[] = [];
  const names = (
    mode === "none" ? [] : bootstrapFileNames(mode === "full" ? "full" : "minimal")
  ).filter((name) => req.privateFiles !== false || !PRIVATE_BOOTSTRAP_FILES.includes(name));
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
  // System-destined files share the bootstrap budget; the user-destined BOOTSTRAP.md
  // travels with the pending message and is fitted there, so the system prompt's shape
  // does not depend on whether this is the first run.
  const systemFiles = workspace.files.filter((f) => destinations.get(f.name) === "system");
  const userFiles = workspace.files.filter((f) => destinations.get(f.name) === "user");
  const userLimited = limitBootstrapFiles(userFiles, env.perFileMaxChars, env.totalMaxChars);

  // Skills: a stranger's view has only those they may read, by workspace-relative path.
  const stranger = req.privateFiles === false;
  const loaded =
    mode === "full" ? await loadSkills(env.skillDirs, env.cache, env.skillEnv) : EMPTY_SKILLS;
  const set = stranger ? strangersSkills(loaded, env) : loaded;
  let listed: ListedSkill[] = set.available.slice(0, env.maxSkillsListed).map((s) => ({
    name: s.name,
    description: s.description,
    path: stranger ? relativeTo(env.workspace, s.path) : s.path,
  }));
  let skillsMode: "full" | "compact" | "none" = listed.length > 0 ? "full" : "none";
  let skillsBlock = renderSkillsList(listed, "full");
  let skillsTokens = skillsBlock ? await counter.count(skillsBlock) : 0;
  if (skillsTokens > caps.skills) {
    skillsMode = "compact";
    skillsBlock = renderSkillsList(listed, "compact");
    skillsTokens = await counter.count(skillsBlock);
    steps.push("skills list without descriptions");
    const before = listed.length;
    while (skillsTokens > caps.skills && listed.length > 0) {
      listed = listed.slice(0, -1);
      skillsBlock = renderSkillsList(listed, "compact");
      skillsTokens = skillsBlock ? await counter.count(skillsBlock) : 0;
    }
    if (listed.length === 0) skillsMode = "none";
    if (listed.length < before) steps.push(`skills list shortened to ${listed.length}`);
  }

  // Tools.
  const toolTokenList = await Promise.all(req.tools.map((t) => counter.count(JSON.stringify(t))));
  const toolCount = fitTools(toolTokenList, caps.tools);
  if (toolCount < req.tools.length)
    steps.push(`tool schemas cut to ${toolCount} of ${req.tools.length}`);

  // Bootstrap files.
  const limit = async (chars: number) => {
    const out = limitBootstrapFiles(systemFiles, env.perFileMaxChars, chars);
    return { limited: out, tokens: await countFiles(out, counter) };
  };
  let totalChars = env.totalMaxChars;
  let boot = await limit(totalChars);
  if (boot.tokens > caps.bootstrap) {
    totalChars = bootstrapCharsFor(caps.bootstrap, sumChars(boot.limited), boot.tokens);
    boot = await limit(totalChars);
    steps.push(`bootstrap tightened to ${totalChars} chars`);
  }

  const shape: PromptShape = {
    mode,
    omit: [],
    listed,
    skillsMode,
    skillsBlock,
    skillsTokens,
    toolCount,
    totalChars,
    limited: boot.limited,
    bootstrapTokens: boot.tokens,
  };
  const render = (s: PromptShape): SystemPrompt =>
    buildSystemPrompt({
      mode: s.mode,
      toolNames: req.tools.slice(0, s.toolCount).map((t) => t.name),
      skillsBlock: s.skillsBlock,
      memoryEnabled: env.memoryEnabled,
      workspace: env.workspace,
      ...(stranger ? { stranger } : {}),
      workspaceReachable: workspace.reachable,
      guideDir: env.guideDir,
      timezone: env.timezone,
      model: { provider: req.model.provider, model: req.model.model, kind: req.modelKind },
      projectFiles: s.limited
        .filter((f) => f.text.length > 0)
        .map((f) => ({ name: f.name, text: f.text })),
      missingFiles:
        workspace.reachable && s.mode !== "none"
          ? workspace.files.filter((f) => f.missing).map((f) => f.name)
          : [],
      omit: s.omit,
      ...(req.addition ? { addition: req.addition } : {}),
    });
  const toolSum = (s: PromptShape) =>
    toolTokenList.slice(0, s.toolCount).reduce((a, b) => a + b, 0);
  const toolFrame = (s: PromptShape) => (s.toolCount > 0 ? overhead.toolsBlock + s.toolCount : 0);
  const measure = async (s: PromptShape) =>
    (await counter.count(render(s).text)) +
    toolSum(s) +
    toolFrame(s) +
    overhead.frame +
    overhead.slack;
  steps.push(
    ...(await degradePrompt(shape, {
      measure,
      limit,
      toolTokens: toolTokenList,
      offeredTools: req.tools.length,
      target: caps.available - caps.historyFloor,
    })),
  );
  const system = render(shape);
  const systemTokens = await counter.count(system.text);

  const limitedByName = new Map(
    [...shape.limited, ...userLimited].map((f) => [f.name, f] as const),
  );
  const files: FileReport[] = workspace.files.map((raw) => {
    const lim = limitedByName.get(raw.name);
    const destination = destinations.get(raw.name) ?? "excluded";
    return {
      name: raw.name,
      path: raw.path,
      rawChars: raw.text?.length ?? 0,
      injectedChars: destination === "excluded" ? 0 : (lim?.injectedChars ?? 0),
      truncated: destination === "excluded" ? false : (lim?.truncated ?? false),
      destination,
      missing: raw.missing,
      ...(raw.error?.startsWith("refused") ? { error: raw.error } : {}),
    };
  });
  const userFile = userLimited.find((f) => !f.missing);
  const interactiveFirst = req.runKind === "interactive" && req.firstRun && mode !== "none";
  const userBlock = userFile
    ? bootstrapUserBlock(userFile.text)
    : !workspace.reachable && interactiveFirst && req.modelKind === "local"
      ? WORKSPACE_UNREACHABLE_NOTE
      : undefined;
  const toolTokens = toolSum(shape);
  return {
    mode: shape.mode,
    system,
    userBlock,
    ...(userFile ? { userFile } : {}),
    workspace,
    files,
    memory: files.find((f) => f.name === "MEMORY.md" && !f.missing),
    skills: {
      set,
      listed: shape.listed,
      mode: shape.skillsMode,
      omitted: set.available
        .map((s) => s.name)
        .filter((name) => !shape.listed.some((l) => l.name === name)),
      tokens: shape.skillsTokens,
    },
    tools: {
      kept: req.tools.slice(0, shape.toolCount),
      dropped: req.tools.slice(shape.toolCount).map((t) => t.name),
      tokens: toolTokenList.slice(0, shape.toolCount),
    },
    caps,
    overhead,
    systemTokens,
    bootstrapTokens: shape.bootstrapTokens,
    toolTokens,
    fixedTokens: systemTokens + toolTokens + toolFrame(shape) + overhead.frame + overhead.slack,
    steps,
  };
}

/** The skills a stranger may read (their SKILL.md passes `strangerMayRead`), nothing else. */
function strangersSkills(set: SkillSet, env: PromptEnv): SkillSet {
  const readable = (path: string) => env.strangerMayRead?.(path) === true;
  return {
    available: set.available.filter((s) => readable(s.path)),
    hidden: set.hidden.filter((s) => readable(s.path)),
    shadowed: [],
  };
}

/** `path` relative to the workspace (a readable skill is inside it). */
const relativeTo = (workspace: string, path: string): string =>
  relative(resolve(workspace), resolve(workspace, path)).split(sep).join("/");

const sumChars = (files: readonly InjectedFile[]): number =>
  files.reduce((a, f) => a + f.injectedChars, 0);

async function countFiles(files: readonly InjectedFile[], counter: TokenCounter): Promise<number> {
  const text = files.map((f) => f.text).join("\n\n");
  return text ? counter.count(text) : 0;
}
