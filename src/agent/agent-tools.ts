/**
 * The tools the agent knows and what a turn is offered: the base tools, the runtime's
 * extra tools (memory, cron), the connected MCP servers' tools and the dynamic (device)
 * tools, in priority order; a turn gets those the tool policy lets its sender use with
 * its provider. MCP servers start connecting in the background when this is made.
 */
import type { HomeAssistantConfig } from "../config/index.ts";
import { createMcpManager, type McpManager } from "../mcp/index.ts";
import { modelKindOf, type Provider } from "../providers/index.ts";
import type { Store } from "../store/index.ts";
import type { Logger } from "../system/index.ts";
import {
  type AgentTool,
  applyToolPolicy,
  createBaseTools,
  orderByPriority,
  type PolicyConfig,
} from "../tools/index.ts";
import type { ChatRequest } from "./chat-request.ts";

export interface AgentToolsDeps {
  store: Store;
  /** The tool sections and policy; read on each turn (a reload may change them). */
  config: PolicyConfig;
  logger: Logger;
  /** Extra tools (memory, camera…) added to the base tools; all pass the policy. */
  extra?: AgentTool[] | undefined;
  /** Tools that appear later; asked on every turn. */
  dynamic?: (() => AgentTool[]) | undefined;
  /** MCP servers; default: from `tools.mcp` (and `homeAssistant`) in the config. */
  mcp?: McpManager | undefined;
  /** Home Assistant's MCP server, when the default MCP manager is made here. */
  homeAssistant?: HomeAssistantConfig | undefined;
  /** Whether the request comes from an owner (before the group rule). */
  isOwner(request: ChatRequest): boolean;
}

export interface AgentTools {
  mcp: McpManager;
  /** Every tool, in priority order, before policy. */
  all(): AgentTool[];
  /** The tools besides the base tools, before policy. */
  extra(): AgentTool[];
  /**
   * The tools `request`'s sender may use with `provider`, after the whole policy
   * pipeline; for a local model, only the Home Assistant tools that match the message.
   */
  offered(tools: AgentTool[], request: ChatRequest, provider: Provider): AgentTool[];
  /** Which Home Assistant tools a local model was offered in the session's last turn, and why. */
  homeAssistantChoice(sessionKey: string): string | undefined;
}

/** Sessions whose last Home Assistant tool choice is kept for `/context` (bounded). */
const KEPT_CHOICES = 16;

export function createAgentTools(deps: AgentToolsDeps): AgentTools {
  const { store, config, logger } = deps;
  const base = createBaseTools({ store, tools: config.tools });
  const mcp =
    deps.mcp ?? createMcpManager(config.tools.mcp, logger.child("mcp"), deps.homeAssistant);
  mcp.start();
  const extra = () => [...(deps.extra ?? []), ...mcp.tools(), ...(deps.dynamic?.() ?? [])];
  const choices = new Map<string, string>();
  const remember = (sessionKey: string, text: string) => {
    choices.delete(sessionKey);
    choices.set(sessionKey, text);
    if (choices.size > KEPT_CHOICES) choices.delete(choices.keys().next().value ?? "");
  };
  const policy = (tools: AgentTool[], request: ChatRequest, provider: Provider) =>
    applyToolPolicy(tools, config, {
      providerId: provider.id,
      channel: request.channel,
      chatType: request.chatType,
      groupId: request.groupId,
      senderId: request.senderId,
      isOwner: deps.isOwner(request),
      runKind: request.runKind ?? "interactive",
    });
  return {
    mcp,
    all: () => orderByPriority([...base, ...extra()]),
    extra,
    offered(tools, request, provider) {
      const allowed = policy(tools, request, provider);
      if (modelKindOf(provider) !== "local") return allowed;
      const house = mcp.homeAssistant.pick(allowed, request.text);
      if (!house) return allowed;
      // `/context` asks too: its own text must not replace the last turn's choice.
      if (!request.text.startsWith("/")) remember(request.sessionKey, house.report);
      return allowed.filter((tool) => !house.left.has(tool.name));
    },
    homeAssistantChoice: (sessionKey) => choices.get(sessionKey),
  };
}
