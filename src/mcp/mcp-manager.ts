/**
 * All configured MCP servers. `start` begins connecting in the background and returns
 * at once; `tools()` offers the tools of servers that are connected right now, so a
 * slow or dead server only means its tools are missing, never a blocked startup.
 */
import type { HomeAssistantConfig, McpConfig } from "../config/index.ts";
import type { Logger } from "../system/index.ts";
import type { AgentTool } from "../tools/index.ts";
import { createHomeAssistantLink, type HomeAssistantLink } from "./home-assistant-link.ts";
import { McpConnection, type McpState } from "./mcp-connection.ts";
import { createMcpTool } from "./mcp-tool.ts";

export interface McpServerStatus {
  name: string;
  state: McpState;
  tools: number;
  error?: string;
}

export interface McpManager {
  start(): void;
  /** Resolves when every server's first connection attempt has ended (bounded by connectTimeoutMs). */
  ready(): Promise<void>;
  /** The configured servers' tools and Home Assistant's, of those connected now. */
  tools(): AgentTool[];
  status(): McpServerStatus[];
  /** Home Assistant's MCP server (`homeAssistant` in the config). */
  homeAssistant: HomeAssistantLink;
  close(): Promise<void>;
}

export function createMcpManager(
  config: McpConfig,
  logger: Logger,
  homeAssistant?: HomeAssistantConfig,
): McpManager {
  const house = createHomeAssistantLink(config, logger.child("home-assistant"));
  const connections = Object.entries(config.servers)
    .filter(([, server]) => server.enabled)
    .map(([name, server]) => new McpConnection(name, server, config, logger.child(`mcp:${name}`)));
  let first: Promise<void> | undefined;
  const cache = new Map<McpConnection, { list: unknown; tools: AgentTool[] }>();
  return {
    homeAssistant: house,
    start() {
      if (first) return;
      house.configure(homeAssistant);
      first = Promise.all([...connections.map((c) => c.connect()), house.ready()]).then(
        () => undefined,
      );
    },
    ready() {
      this.start();
      return first ?? Promise.resolve();
    },
    tools() {
      const servers = connections.flatMap((connection) => {
        if (connection.state !== "ready") return [];
        const hit = cache.get(connection);
        if (hit && hit.list === connection.tools) return hit.tools;
        const tools = connection.tools.map((info) => createMcpTool(connection, info));
        cache.set(connection, { list: connection.tools, tools });
        return tools;
      });
      return [...servers, ...house.tools()];
    },
    status: () =>
      connections.map((c) => ({
        name: c.name,
        state: c.state,
        tools: c.tools.length,
        ...(c.lastError ? { error: c.lastError } : {}),
      })),
    async close() {
      await Promise.all([...connections.map((c) => c.close()), house.close()]);
    },
  };
}
