/**
 * Tool schemas as a provider receives them. The agent sends these every turn; `clawbox
 * context` and the console's Context page count the same schemas for their reports, so
 * a report's tool tokens match a real turn's.
 */
import type { ProviderKind, ToolDefinition } from "../providers/index.ts";
import type { Store } from "../store/index.ts";
import { createBaseTools } from "./base-tools.ts";
import { normalizeSchema } from "./normalize-schema.ts";
import type { AgentTool } from "./tool.ts";
import { applyToolPolicy, type PolicyConfig, type PolicyInput } from "./tool-policy.ts";
import { orderByPriority } from "./tool-priority.ts";

export function toolDefinitions(tools: AgentTool[], kind: ProviderKind): ToolDefinition[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: normalizeSchema(tool.parameters, kind),
  }));
}

/**
 * What a context report counts for one sender: the base tools plus `extra` (memory),
 * after the whole policy. MCP tools are left out: listing them means connecting to
 * every server.
 */
export function reportToolDefinitions(input: {
  store: Store;
  config: PolicyConfig;
  extra: AgentTool[];
  policy: PolicyInput;
  modelKind: "local" | "cloud";
}): ToolDefinition[] {
  const { store, config } = input;
  const offered = applyToolPolicy(
    orderByPriority([...createBaseTools({ store, tools: config.tools }), ...input.extra]),
    config,
    input.policy,
  );
  return toolDefinitions(offered, input.modelKind === "local" ? "local" : "openai");
}
