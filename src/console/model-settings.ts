/**
 * After the console changed the model settings in the config file: re-read the file
 * (as `clawbox run` would at start) and hand the new `models` section to the agent, so
 * the next turn uses it without a restart.
 */
import { loadConfig } from "../config/index.ts";
import type { ConsoleDeps } from "./console-deps.ts";

export function applyModelSettings(deps: ConsoleDeps): string[] {
  const loaded = loadConfig({ file: deps.configFile, env: deps.env });
  return deps.agent.reloadModels(loaded.config.models);
}
