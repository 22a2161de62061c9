/**
 * The model a context report is made for, described without loading it: a cloud model's
 * configured window, or for a local model the window a turn would get (`contextSize`, else
 * the GGUF header's trained context capped as LocalProvider caps it). Shared by
 * `clawbox context`, `clawbox compact` and the console's Context page.
 */
import { basename } from "node:path";
import type { ModelsConfig } from "../config/index.ts";
import { ClawboxError } from "../errors/index.ts";
import { readGgufHeader } from "../models/index.ts";
import { LOCAL_CONTEXT_CAP } from "./local/context-cap.ts";

export interface ModelWindow {
  providerId: string;
  model: string;
  contextWindow: number;
  kind: "local" | "cloud";
}

/** A local model's name as reports and sessions show it: the file name without `.gguf`. */
export function localModelName(path: string | undefined): string {
  return path ? basename(path).replace(/\.gguf$/i, "") : "local";
}

/** The primary model's id, name and kind; a local window here is `contextSize` or the cap. */
export function primaryModel(models: ModelsConfig): ModelWindow {
  const id = models.primary;
  const provider = models.providers[id];
  if (!provider) {
    throw new ClawboxError("CONFIG_INVALID", `models.primary: "${id}" is not in models.providers`);
  }
  if (provider.kind === "local") {
    return {
      providerId: id,
      model: localModelName(provider.path),
      contextWindow: provider.contextSize ?? LOCAL_CONTEXT_CAP,
      kind: "local",
    };
  }
  return {
    providerId: id,
    model: provider.model,
    contextWindow: provider.contextWindow,
    kind: "cloud",
  };
}

/**
 * The context window a local turn would get: `contextSize` when configured, else the
 * GGUF header's trained context capped at LOCAL_CONTEXT_CAP; the cap when there is no
 * file or its header cannot be read (`warn` is told, the caller goes on).
 */
export async function localContextWindow(
  entry: { contextSize?: number | undefined; path?: string | undefined },
  warn: (message: string) => void,
): Promise<number> {
  if (entry.contextSize !== undefined) return entry.contextSize;
  if (!entry.path) return LOCAL_CONTEXT_CAP;
  try {
    const header = await readGgufHeader(entry.path);
    return Math.min(header.contextLength ?? LOCAL_CONTEXT_CAP, LOCAL_CONTEXT_CAP);
  } catch (error) {
    warn(
      `cannot read ${entry.path} (${String(error)}): assuming a ${LOCAL_CONTEXT_CAP}-token window`,
    );
    return LOCAL_CONTEXT_CAP;
  }
}

/** The primary model with a local model's window read from its GGUF header. */
export async function primaryModelWindow(
  models: ModelsConfig,
  warn: (message: string) => void,
): Promise<ModelWindow> {
  const model = primaryModel(models);
  const entry = models.providers[model.providerId];
  if (model.kind === "local" && entry?.kind === "local") {
    model.contextWindow = await localContextWindow(entry, warn);
  }
  return model;
}
