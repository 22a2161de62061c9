/**
 * The fix for "no local model": the exact pull command for the model recommended for
 * this board (a name that exists in the manifest), or the first chat model when the
 * board is too small to recommend one. Read on the error path only.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { loadManifest } from "./manifest.ts";
import { pullCommandFor } from "./pull-command.ts";
import { boardResources, chatModels, recommendChatModel } from "./recommend-model.ts";

/**
 * `clawbox models pull <name>` for this board, or undefined when the manifest is
 * unreadable or has no chat model. `modelsDir` defaults to the home folder (same disk
 * as the models on a box).
 */
export function missingModelPullCommand(
  modelsDir: string = homedir(),
  manifestPath?: string,
): string | undefined {
  try {
    const manifest = manifestPath ? loadManifest(manifestPath) : loadManifest();
    const recommended = recommendChatModel(manifest, boardResources(modelsDir)).model;
    const model = recommended ?? chatModels(manifest)[0];
    return model ? pullCommandFor(model) : undefined;
  } catch {
    // An unreadable manifest: the caller falls back to the manual fix.
    return undefined;
  }
}

/**
 * The hint for the log and the CLI, around `missingModelPullCommand`'s command. It names
 * no address: the box may listen on another port or host than the default, and
 * `clawbox console url` prints the right link (with a login ticket).
 */
export function missingModelHint(modelsDir: string = homedir(), manifestPath?: string): string {
  const command = missingModelPullCommand(modelsDir, manifestPath);
  return command
    ? `run "${command}" (or pull one on the web console's Models page: clawbox console url prints its link); the pulled model becomes the local model`
    : "set models.providers.local.path to a GGUF file";
}

/**
 * The line `clawbox run` prints after its console link when chat cannot work yet (the
 * primary model is local and has no file, or its file is gone): the console's Models
 * page and the command. Undefined when there is nothing to fix. Cheap (no manifest read):
 * it runs at every start.
 */
export function noModelNotice(
  primary: { kind: string; path?: string | undefined } | undefined,
): string | undefined {
  if (primary?.kind !== "local") return undefined;
  const page = "the console's Models page (log in, then Models)";
  if (!primary.path) {
    return `no chat model yet: pull one on ${page}, or run: clawbox models pull --recommended`;
  }
  if (existsSync(primary.path)) return undefined;
  return `the local model file ${primary.path} is missing: choose a model on ${page}, or run: clawbox models use NAME`;
}
