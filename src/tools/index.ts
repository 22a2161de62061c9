/**
 * The agent's tools: files in the workspace (read, write, edit, apply_patch), exec,
 * sessions, and the policy that says which tools a sender and a model may see. Owner
 * files and owner-only tools never reach a stranger.
 */
export { parsePatch } from "./apply-patch-tool.ts";
export { createBaseTools } from "./base-tools.ts";
export { createExecTool, type ExecLimits } from "./exec-tool.ts";
export { normalizeSchema } from "./normalize-schema.ts";
export { type FileRequester, resolveToolPath } from "./owner-files.ts";
export { sessionUsage, type UsageTotals } from "./session-usage.ts";
export type { AgentTool, ToolContext, ToolOutput } from "./tool.ts";
export { reportToolDefinitions, toolDefinitions } from "./tool-definitions.ts";
export { capText, errorOutput, textOutput } from "./tool-output.ts";
export {
  applyToolPolicy,
  decideTool,
  ownerPowers,
  type PolicyConfig,
  type PolicyDecision,
  type PolicyInput,
  type PolicyStage,
  policyStages,
} from "./tool-policy.ts";
export { orderByPriority } from "./tool-priority.ts";
export { validateArguments } from "./validate-arguments.ts";
export { resolveInWorkspace, shownPath } from "./workspace-path.ts";
