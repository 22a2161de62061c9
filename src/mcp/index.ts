/**
 * MCP servers from the config: connected after READY, their tools offered to the agent
 * under prefixed names, a server that hangs or fails reported without stopping others.
 */

export { homeAssistantDoctorChecks } from "./home-assistant-doctor-check.ts";
export type { HomeAssistantLink, HomeAssistantStatus } from "./home-assistant-link.ts";
export type { McpCallResult, McpState, McpToolInfo } from "./mcp-connection.ts";
export { createMcpManager, type McpManager, type McpServerStatus } from "./mcp-manager.ts";
export { createMcpTool, mcpToolName } from "./mcp-tool.ts";
export { type HomeAssistantProbe, probeHomeAssistant } from "./probe-home-assistant.ts";
