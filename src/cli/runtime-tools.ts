/**
 * The tools a clawbox runtime adds to the agent's base tools: memory, reminders (cron)
 * and the devices TOOLS.md describes (re-read on every turn). `run` and `chat` hand them
 * to the agent and `clawbox context` counts the very same ones, so a context report
 * lists what a turn offers.
 */
import type { ClawboxConfig } from "../config/index.ts";
import { createDeviceTools } from "../devices/index.ts";
import type { MemoryService } from "../memory/index.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { HomePaths } from "../system/index.ts";
import type { AgentTool } from "../tools/index.ts";

export interface RuntimeTools {
  /** Fixed for the process: memory and reminders. */
  tools: AgentTool[];
  /** The device tools as TOOLS.md describes them now. */
  dynamicTools: () => AgentTool[];
}

export function runtimeTools(input: {
  config: ClawboxConfig;
  paths: HomePaths;
  memory: MemoryService | undefined;
  scheduler: Scheduler;
}): RuntimeTools {
  const { config, paths } = input;
  return {
    tools: [...(input.memory?.tools ?? []), ...input.scheduler.tools],
    dynamicTools: createDeviceTools({
      tools: config.tools,
      home: paths.home,
      workspace: paths.workspace,
      vision: () => config.models.providers[config.models.primary]?.kind !== "local",
    }),
  };
}
