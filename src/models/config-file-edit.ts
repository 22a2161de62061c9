/**
 * The model settings the console and `models pull` change in the config file: the local
 * model file, the primary provider and the fallbacks. Written through the config area's
 * in-place editor (comments and layout kept, atomic write).
 */
import { type ConfigEdit, type EditConfigOptions, editConfigFile } from "../config/index.ts";

export interface ModelSettingsEdit {
  /** models.providers.<localId>.path (the provider is created as kind "local" when absent). */
  localPath?: string;
  /** Provider id of the local model; default "local". */
  localId?: string;
  primary?: string;
  fallbacks?: string[];
}

/**
 * Applies `edit` to the config file (created when absent) and returns the new text. With
 * `options.validate`, a file that would not load as a whole is refused before anything
 * is written (a form never leaves half its change behind).
 */
export async function editModelSettings(
  file: string,
  edit: ModelSettingsEdit,
  options: EditConfigOptions = {},
): Promise<string> {
  const edits: ConfigEdit[] = [];
  if (edit.localPath !== undefined) {
    const provider = ["models", "providers", edit.localId ?? "local"];
    edits.push({ path: [...provider, "kind"], value: "local", ifAbsent: true });
    edits.push({ path: [...provider, "path"], value: edit.localPath });
  }
  if (edit.primary !== undefined) edits.push({ path: ["models", "primary"], value: edit.primary });
  if (edit.fallbacks !== undefined)
    edits.push({ path: ["models", "fallbacks"], value: edit.fallbacks });
  return editConfigFile(file, edits, options);
}
