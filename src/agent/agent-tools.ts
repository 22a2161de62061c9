/**
 * The tools the agent knows and what a turn is offered: the base tools, the runtime's
 * extra tools (memory, cron), the connected MCP servers' tools and the dynamic (device)
 * tools, in priority order; a turn gets those the tool policy lets its sender use with
 * its provider. MCP servers start connecting in the background when this is made.
 */
import { createMcpManager, type McpManager } from "../mcp/index.ts";
import type { Provider } from "../providers/index.ts";
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
  /** MCP servers; default: from `tools.mcp` in the config. */
  mcp?: McpManager | undefined;
  /** Whether the request comes from an owner (before the group rule). */
  isOwner(request: ChatRequest): boolean;
}

export interface AgentTools {
  mcp: McpManager;
  /** Every tool, in priority order, before policy. */
  all(): AgentTool[];
  /** The tools besides the base tools, before policy. */
  extra(): AgentTool[];
  /** The tools `request`'s sender may use with `provider`, after the whole policy pipeline. */
  offered(tools: AgentTool[], request: ChatRequest, provider: Provider): AgentTool[];
}

export function createAgentTools(deps: AgentToolsDeps): AgentTools {
  const { store, config, logger } = deps;
  const base = createBaseTools({ store, tools: config.tools });
  const mcp = deps.mcp ?? createMcpManager(config.tools.mcp, logger.child("mcp"));
  mcp.start();
  const extra = () => [...(deps.extra ?? []), ...mcp.tools(), ...(deps.dynamic?.() ?? [])];
  return {
    mcp,
    all: () => orderByPriority([...base, ...extra()]),
    extra,
    offered: (tools, request, provider) =>
      applyToolPolicy(tools, config, {
        providerId: provider.id,
        channel: request.channel,
        chatType: request.chatType,
        groupId: request.groupId,
        senderId: request.senderId,
        isOwner: deps.isOwner(request),
        runKind: request.runKind ?? "interactive",
      }),
  };
}
