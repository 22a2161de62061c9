/**
 * The order tools are offered in is their priority: when a small context window cannot
 * hold every schema, the budget planner drops tools from the end. Files come first (the
 * workspace is the assistant's memory and configuration), then memory recall, then the
 * rest; within a group the original order is kept.
 */
import type { AgentTool } from "./tool.ts";

const GROUP_ORDER = ["fs", "memory", "runtime", "sessions", "mcp"];

function rank(tool: AgentTool): number {
  const index = GROUP_ORDER.indexOf(tool.group ?? "");
  return index === -1 ? GROUP_ORDER.length : index;
}

/** Tools sorted by group priority (stable). */
export function orderByPriority(tools: readonly AgentTool[]): AgentTool[] {
  return tools
    .map((tool, index) => ({ tool, index }))
    .sort((a, b) => rank(a.tool) - rank(b.tool) || a.index - b.index)
    .map((entry) => entry.tool);
}
