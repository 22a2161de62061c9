/**
 * After a chat model is pulled: it becomes the local model when none is configured yet,
 * written to the config file the box reads (comments kept). A model that is already
 * configured is never replaced behind the owner's back.
 */
import type { ClawboxConfig } from "../config/index.ts";
import { editModelSettings } from "./config-file-edit.ts";

export interface Activation {
  activated: boolean;
  /** What happened, in one sentence for the CLI and the console. */
  message: string;
}

/** The id of the local provider to fill: "local", or the only local provider configured. */
export function localProviderId(config: ClawboxConfig): string {
  if (config.models.providers.local?.kind === "local") return "local";
  const locals = Object.entries(config.models.providers).filter(([, p]) => p.kind === "local");
  return locals.length === 1 && locals[0] ? locals[0][0] : "local";
}

export async function activateIfUnset(
  config: ClawboxConfig,
  configFile: string,
  ggufPath: string,
): Promise<Activation> {
  const id = localProviderId(config);
  const entry = config.models.providers[id];
  if (entry?.kind === "local" && entry.path) {
    return {
      activated: false,
      message: `models.providers.${id}.path is already ${entry.path}: left as it is (choose the model in the console's Models page to switch)`,
    };
  }
  await editModelSettings(configFile, { localId: id, localPath: ggufPath });
  return {
    activated: true,
    message: `${configFile}: models.providers.${id}.path set to ${ggufPath}`,
  };
}
