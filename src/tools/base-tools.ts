/** The built-in tools every agent has (before policy): files, exec, sessions. */
import type { ToolsConfig } from "../config/index.ts";
import type { Store } from "../store/index.ts";
import { applyPatchTool } from "./apply-patch-tool.ts";
import { editTool } from "./edit-tool.ts";
import { createExecTool } from "./exec-tool.ts";
import { readTool } from "./read-tool.ts";
import { createSessionTools } from "./session-tools.ts";
import type { AgentTool } from "./tool.ts";
import { writeTool } from "./write-tool.ts";

export function createBaseTools(deps: { store: Store; tools: ToolsConfig }): AgentTool[] {
  return [
    readTool,
    writeTool,
    editTool,
    applyPatchTool,
    createExecTool(deps.tools.exec),
    ...createSessionTools(deps.store),
  ];
}
