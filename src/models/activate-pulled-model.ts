/**
 * Making a GGUF file the local model, written to the config file the box reads (comments
 * kept; a running `clawbox run` picks the change up). After a pull it happens only when
 * no local model is configured yet (no path, or a path to a file that does not exist,
 * like the packaged default /var/lib/clawbox/models/model.gguf on a fresh box): a model
 * file that exists is never replaced behind the owner's back. `clawbox models use` and
 * the console's "use" choose it explicitly, and make the local model the primary one.
 */
import { existsSync } from "node:fs";
import type { ModelsConfig } from "../config/index.ts";
import { editModelSettings } from "./config-file-edit.ts";

export interface Activation {
  activated: boolean;
  /** What happened, in one sentence for the CLI and the console. */
  message: string;
}

/** The id of the local provider to fill: "local", or the only local provider configured. */
export function localProviderId(models: ModelsConfig): string {
  if (models.providers.local?.kind === "local") return "local";
  const locals = Object.entries(models.providers).filter(([, p]) => p.kind === "local");
  return locals.length === 1 && locals[0] ? locals[0][0] : "local";
}

export async function activateIfUnset(
  models: ModelsConfig,
  configFile: string,
  ggufPath: string,
): Promise<Activation> {
  const id = localProviderId(models);
  const entry = models.providers[id];
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

/**
 * Makes `ggufPath` the local model and the local provider the primary model (dropped from
 * the fallbacks, where it would only repeat itself). The caller validated the file.
 */
export async function activateModel(
  models: ModelsConfig,
  configFile: string,
  ggufPath: string,
): Promise<Activation> {
  const id = localProviderId(models);
  const fallbacks = models.fallbacks.filter((f) => f !== id);
  await editModelSettings(configFile, {
    localId: id,
    localPath: ggufPath,
    primary: id,
    ...(fallbacks.length !== models.fallbacks.length ? { fallbacks } : {}),
  });
  const was = models.primary === id ? "" : ` (the primary model was ${models.primary})`;
  return {
    activated: true,
    message: `${configFile}: models.providers.${id}.path set to ${ggufPath}; models.primary is "${id}"${was}`,
  };
}
