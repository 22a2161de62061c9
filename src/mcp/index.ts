export type { McpCallResult, McpState, McpToolInfo } from "./mcp-connection.ts";
export { createMcpManager, type McpManager, type McpServerStatus } from "./mcp-manager.ts";
export { createMcpTool, mcpToolName } from "./mcp-tool.ts";
