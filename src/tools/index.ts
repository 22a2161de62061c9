export type { AgentTool, ToolContext, ToolOutput } from "./tool.ts";
