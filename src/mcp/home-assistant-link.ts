/**
 * The box's link to Home Assistant's MCP server (`mcp_server` integration: stateless
 * streamable HTTP at `<url>/api/mcp`, `Authorization: Bearer <long-lived token>`; HA's
 * `homeassistant/components/mcp_server/http.py`). HA's tools are offered under the names
 * HA lists (e.g. `intent__HassTurnOff` since HA 2026.9): nothing here knows one. They
 * are in the "mcp" policy group, so strangers never get them unless the owner widens
 * the policy. HA down, slow or the token revoked: no HA tools are offered, `status()`
 * says why in plain words, and the connection comes back with backoff (McpConnection).
 * A changed section (the console's Save, an edited file) replaces the connection.
 */
import type { HomeAssistantConfig, McpConfig } from "../config/index.ts";
import type { Logger } from "../system/index.ts";
import type { AgentTool } from "../tools/index.ts";
import {
  type GuardedFetch,
  guardedFetch,
  type HomeAssistantProblem,
  homeAssistantEndpoint,
} from "./home-assistant-fetch.ts";
import {
  chooseHomeAssistantTools,
  formatToolChoice,
  type HomeAssistantEntity,
  parseEntityOverview,
} from "./home-assistant-tool-choice.ts";
import { McpConnection } from "./mcp-connection.ts";
import { createMcpTool } from "./mcp-tool.ts";

export interface HomeAssistantStatus {
  state: "off" | "connecting" | "ready" | "failed";
  /** HA's address as saved (it holds no credentials: the schema refuses user info). */
  url?: string;
  tools: number;
  /** Why HA's tools are not offered, in plain words. */
  reason?: string;
}

export interface HomeAssistantLink {
  /** Applies a (changed) `homeAssistant` section: the old connection closes, a new one starts. */
  configure(config: HomeAssistantConfig | undefined): void;
  /** HA's tools while connected; none otherwise. */
  tools(): AgentTool[];
  status(): HomeAssistantStatus;
  /** For a turn that would get HA's tools: why the house cannot be reached now, if so. */
  unreachableNote(): string | undefined;
  /**
   * For a local model: which of HA's tools among `allowed` to leave out this turn (all
   * but the few matching `message`, at most `homeAssistant.localModelTools`), and the
   * choice in words for the context report; undefined when `allowed` has none of HA's.
   */
  pick(allowed: AgentTool[], message: string): { left: Set<string>; report: string } | undefined;
  /** Resolves when the current connection's first attempt has ended. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Names every provider accepts; HA's server cuts names to 64 characters itself. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const SERVER = "home-assistant";

/** What went wrong, as a person reads it on the console or in `clawbox doctor`. */
export function plainReason(
  problem: HomeAssistantProblem | undefined,
  url: string,
  fallback: string | undefined,
): string {
  switch (problem?.kind) {
    case "refused-token":
      return `Home Assistant refused the token (HTTP ${problem.status}). Create a new long-lived access token (Home Assistant → your profile → Security) and save it.`;
    case "no-mcp-server":
      return `Home Assistant at ${url} has no MCP server (HTTP 404 for /api/mcp). Add the "Model Context Protocol Server" integration (Settings → Devices & services).`;
    case "http-error":
      return `Home Assistant at ${url} answered HTTP ${problem.status} for /api/mcp.`;
    case "redirect":
      return `Home Assistant's address redirects to ${problem.to}. The token is never sent through a redirect: save the address it redirects to.`;
    case "no-answer":
      return `Home Assistant at ${url} did not answer in time. Is it overloaded or starting up?`;
    case "unreachable":
      return `Nothing answers at ${url} (${problem.cause}). Is Home Assistant running, and is the address right?`;
    default:
      return fallback
        ? `Home Assistant at ${url} could not be used: ${fallback}`
        : `Home Assistant at ${url} is not connected yet.`;
  }
}

interface Live {
  config: HomeAssistantConfig;
  connection: McpConnection;
  guard: GuardedFetch;
  first: Promise<void>;
  cache?: { list: unknown; tools: AgentTool[] };
  entities?: { text: string | undefined; list: HomeAssistantEntity[] };
}

export function createHomeAssistantLink(
  limits: Pick<McpConfig, "connectTimeoutMs" | "callTimeoutMs" | "reconnectDelayMs">,
  logger: Logger,
): HomeAssistantLink {
  let live: Live | undefined;
  let closed = false;

  const reasonOf = (l: Live): string | undefined => {
    if (l.connection.state === "ready") return undefined;
    if (l.connection.state !== "failed" && !l.guard.lastProblem()) return undefined;
    if (!l.guard.lastProblem() && l.guard.pending() > 0)
      return plainReason({ kind: "no-answer" }, l.config.url, undefined);
    return plainReason(l.guard.lastProblem(), l.config.url, l.connection.lastError);
  };

  /** A call that found HA gone (down, or the token revoked) drops the connection: no more offers until it is back. */
  const watchCall = (l: Live, tool: AgentTool): AgentTool => ({
    ...tool,
    async execute(args, ctx) {
      const output = await tool.execute(args, ctx);
      const problem = l.guard.lastProblem();
      if (problem && problem.kind !== "http-error")
        l.connection.dropped(plainReason(problem, l.config.url, undefined));
      return output;
    },
  });

  return {
    configure(config) {
      const old = live;
      live = undefined;
      void old?.connection.close();
      if (closed || !config?.enabled) return;
      const endpoint = homeAssistantEndpoint(config.url);
      const guard = guardedFetch(endpoint, config.token);
      const connection = new McpConnection(
        SERVER,
        { transport: "http", url: endpoint, enabled: true },
        limits,
        logger,
        // HA's one prompt (mcp_server `prompts/list`) holds its overview of exposed entities.
        { fetch: guard.fetch, secrets: [config.token], prompt: "Assist" },
      );
      live = { config, connection, guard, first: connection.connect() };
    },
    tools() {
      const l = live;
      if (l?.connection.state !== "ready") return [];
      if (l.cache?.list === l.connection.tools) return l.cache.tools;
      const tools = l.connection.tools
        .filter((info) => {
          if (TOOL_NAME.test(info.name) && !info.name.startsWith("mcp__")) return true;
          logger.warn("Home Assistant tool skipped: its name is not one models accept", {
            tool: info.name.slice(0, 80),
          });
          return false;
        })
        .map((info) => watchCall(l, createMcpTool(l.connection, info, info.name)));
      l.cache = { list: l.connection.tools, tools };
      return tools;
    },
    status() {
      const l = live;
      if (!l) return { state: "off", tools: 0 };
      const state =
        l.connection.state === "closed" || l.connection.state === "idle"
          ? "connecting"
          : l.connection.state;
      const reason = reasonOf(l);
      return {
        state,
        url: l.config.url,
        tools: state === "ready" ? l.connection.tools.length : 0,
        ...(reason ? { reason } : {}),
      };
    },
    unreachableNote() {
      const l = live;
      if (!l) return undefined;
      const reason = reasonOf(l);
      return reason ? `Home Assistant (the house) is unreachable now: ${reason}` : undefined;
    },
    pick(allowed, message) {
      const l = live;
      const own = new Set(l?.cache?.tools.map((t) => t.name));
      const house = allowed.filter((t) => own.has(t.name));
      if (!l || house.length === 0) return undefined;
      const entities =
        l.entities && l.entities.text === l.connection.promptText
          ? l.entities
          : { text: l.connection.promptText, list: parseEntityOverview(l.connection.promptText) };
      l.entities = entities;
      const choice = chooseHomeAssistantTools(
        house,
        message,
        l.config.localModelTools,
        entities.list,
      );
      const kept = new Set(choice.tools.map((t) => t.name));
      return {
        left: new Set(house.map((t) => t.name).filter((name) => !kept.has(name))),
        report: formatToolChoice(choice),
      };
    },
    ready: () => live?.first ?? Promise.resolve(),
    async close() {
      closed = true;
      const old = live;
      live = undefined;
      await old?.connection.close();
    },
  };
}
