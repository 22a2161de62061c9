/**
 * After a chat model is pulled: it becomes the local model when none is configured yet
 * (no path, or a path to a file that does not exist, like the packaged default
 * /var/lib/clawbox/models/model.gguf on a fresh box), written to the config file the box
 * reads (comments kept). A model file that exists is never replaced behind the owner's back.
 */
import { existsSync } from "node:fs";
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
  if (entry?.kind === "local" && entry.path && existsSync(entry.path)) {
    return {
      activated: false,
      message: `models.providers.${id}.path is already ${entry.path}: left as it is (choose the model in the console's Models page to switch)`,
    };
  }
  await editModelSettings(configFile, { localId: id, localPath: ggufPath });
  const missing =
    entry?.kind === "local" && entry.path ? ` (was ${entry.path}, which does not exist)` : "";
  return {
    activated: true,
    message: `${configFile}: models.providers.${id}.path set to ${ggufPath}${missing}`,
  };
}
