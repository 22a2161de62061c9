/**
 * The tool policy pipeline (SPEC §7). Stages narrow the tool set in order: profile →
 * provider profile and filter → global allow/deny → agent → channel, then group →
 * sender → strangers. A stage's `allow` keeps only matching tools; a `deny` anywhere
 * removes a tool whatever any stage allows (deny wins). Owner-only tools never reach a
 * non-owner. The last stage applies to non-owners only: the most specific `strangers`
 * filter (sender, then group, then channel) or else `tools.strangers`, whose default
 * denies file writes, exec, session and memory tools (SPEC §9a). An owner's turn in a
 * group chat is judged as a stranger's there (`ownerPowers`): everyone in the group
 * writes into its context, so their words must not steer the owner's tools.
 * A voice request from a Home Assistant room (the household, not a stranger) gets
 * `wyoming.tools` in place of the stranger stage: the whole set it may use, and an
 * owner-only tool only when that list names it exactly (docs/SECURITY.md, "Voice rooms").
 * Patterns: exact names, `*` wildcards ("mcp__home__*"), and `group:<name>`.
 */
import type {
  AgentConfig,
  CronConfig,
  HeartbeatConfig,
  ToolFilter,
  ToolProfile,
  ToolsConfig,
  WyomingConfig,
} from "../config/index.ts";
import { DEFAULT_VOICE_TOOLS } from "../config/index.ts";
import { formatConversation, identityOf } from "../sessions/index.ts";
import type { AgentTool } from "./tool.ts";

const PROFILES: Record<ToolProfile, string[] | undefined> = {
  minimal: ["session_status"],
  coding: ["group:fs", "group:runtime", "group:sessions", "group:memory"],
  messaging: ["group:sessions", "group:memory", "group:mcp"],
  full: undefined,
};

export interface PolicyInput {
  providerId: string;
  channel: string;
  chatType: "direct" | "group" | "system";
  groupId?: string;
  senderId?: string;
  isOwner: boolean;
  /** Scheduler runs add their run kind's stage (`heartbeat.tools`, `cron.tools`). */
  runKind?: "interactive" | "subagent" | "cron" | "heartbeat";
}

export interface PolicyStage {
  name: string;
  allow?: string[];
  deny?: string[];
}

function patternMatches(pattern: string, tool: AgentTool): boolean {
  if (pattern.startsWith("group:")) return tool.group === pattern.slice(6);
  if (!pattern.includes("*")) return pattern === tool.name;
  const regex = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return regex.test(tool.name);
}

const anyMatches = (patterns: string[], tool: AgentTool) =>
  patterns.some((p) => patternMatches(p, tool));

/** The config sections the policy reads (the whole config has this shape). */
export interface PolicyConfig {
  tools: ToolsConfig;
  agent: Pick<AgentConfig, "id" | "tools" | "owners">;
  heartbeat: Pick<HeartbeatConfig, "tools">;
  cron: Pick<CronConfig, "tools">;
  /** The voice rooms' tool set; absent: the default set. */
  wyoming?: Pick<WyomingConfig, "tools">;
}

/** Whether a non-owner's turn is the household's (a voice room), not a stranger's. */
function householdTurn(input: PolicyInput): boolean {
  return !input.isOwner && identityOf(input.channel).household === true;
}

/** The tool patterns of a voice room (`wyoming.tools`). */
function voiceTools(config: PolicyConfig): string[] {
  return config.wyoming?.tools ?? DEFAULT_VOICE_TOOLS;
}

/** The stages that apply to one request, in pipeline order. */
export function policyStages(config: PolicyConfig, input: PolicyInput): PolicyStage[] {
  const tools = config.tools;
  const stages: PolicyStage[] = [];
  const add = (name: string, filter: Partial<ToolFilter> | undefined) => {
    if (filter && (filter.allow || filter.deny))
      stages.push({ name, allow: filter.allow, deny: filter.deny });
  };
  stages.push({ name: `profile ${tools.profile}`, allow: PROFILES[tools.profile] });
  const byProvider = tools.byProvider[input.providerId];
  if (byProvider?.profile)
    stages.push({
      name: `provider profile ${byProvider.profile}`,
      allow: PROFILES[byProvider.profile],
    });
  add(`provider ${input.providerId}`, byProvider);
  add("tools", { allow: tools.allow, deny: tools.deny });
  add(`agent ${config.agent.id}`, config.agent.tools);
  add(`channel ${input.channel}`, tools.byChannel[input.channel]);
  // A group's entry is its address, as in heartbeat.target: "qq:group:GROUPID".
  const groupEntry = input.groupId
    ? tools.byChannel[
        formatConversation({ channel: input.channel, chatType: "group", peer: input.groupId })
      ]
    : undefined;
  if (input.groupId) add(`group ${input.groupId}`, groupEntry);
  if (input.senderId) add(`sender ${input.senderId}`, tools.bySender[input.senderId]);
  if (householdTurn(input)) {
    stages.push({ name: "voice room (wyoming.tools)", allow: voiceTools(config) });
  } else if (!input.isOwner) {
    const scoped: [string, Partial<ToolFilter> | undefined][] = [
      ["sender", input.senderId ? tools.bySender[input.senderId]?.strangers : undefined],
      ["group", groupEntry?.strangers],
      ["channel", tools.byChannel[input.channel]?.strangers],
    ];
    const found = scoped.find(([, filter]) => filter);
    stages.push({
      name: found ? `strangers (${found[0]} filter)` : "strangers (non-owner default)",
      ...(found?.[1] ?? tools.strangers),
    });
  }
  if (input.runKind === "heartbeat") add("run kind heartbeat", config.heartbeat.tools);
  if (input.runKind === "cron") add("run kind cron", config.cron.tools);
  return stages;
}

export interface PolicyDecision {
  allowed: boolean;
  /** Which stage removed the tool, for logs and denial messages. */
  reason?: string;
}

export function decideTool(
  tool: AgentTool,
  stages: PolicyStage[],
  isOwner: boolean,
  /** Owner-only tools named exactly in the voice rooms' list (they pass the stages too). */
  grantedOwnerOnly: readonly string[] = [],
): PolicyDecision {
  if (tool.ownerOnly && !isOwner && !grantedOwnerOnly.includes(tool.name))
    return { allowed: false, reason: "owner-only tool and the sender is not an owner" };
  for (const stage of stages) {
    if (stage.deny && anyMatches(stage.deny, tool))
      return { allowed: false, reason: `denied by ${stage.name}` };
  }
  for (const stage of stages) {
    if (stage.allow && !anyMatches(stage.allow, tool))
      return { allowed: false, reason: `not allowed by ${stage.name}` };
  }
  return { allowed: true };
}

/** The tools a request may see and call. */
export function applyToolPolicy(
  tools: AgentTool[],
  config: PolicyConfig,
  input: PolicyInput,
): AgentTool[] {
  const owner = ownerPowers(input, config.tools);
  const judged = { ...input, isOwner: owner };
  const stages = policyStages(config, judged);
  const household = householdTurn(judged);
  const granted = household ? voiceTools(config) : [];
  return tools.filter(
    (tool) =>
      decideTool(tool, stages, owner, granted).allowed &&
      (!household || !ROOM_EXACT_ONLY.has(tool.name) || granted.includes(tool.name)),
  );
}

/**
 * Tools a voice room gets only when `wyoming.tools` names them exactly, like the owner-only
 * ones: those that change workspace files, and `memory_get`, which reads any memory file
 * (`MEMORY.md` included). A wildcard or `group:` pattern never hands them out
 * (docs/SECURITY.md, "Voice rooms").
 */
const ROOM_EXACT_ONLY: ReadonlySet<string> = new Set([
  "write",
  "edit",
  "apply_patch",
  "memory_get",
]);

/**
 * Whether a turn runs with the owner's tools and private files: an owner's turn, except
 * in a group chat, whose context holds what everyone there said (a prompt injection from
 * any member would otherwise steer `exec` and read `MEMORY.md`); there the owner gets
 * what the group's strangers get, unless `tools.ownerToolsInGroups` opts in.
 */
export function ownerPowers(
  turn: { isOwner: boolean; chatType: PolicyInput["chatType"] },
  tools: Pick<ToolsConfig, "ownerToolsInGroups">,
): boolean {
  return turn.isOwner && (turn.chatType !== "group" || tools.ownerToolsInGroups);
}
