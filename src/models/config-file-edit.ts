/**
 * Edits the box's config file (clawbox.json, JSON5) in place for the model settings the
 * console and `models pull` change: the local model file, the primary provider and the
 * fallbacks. The file is edited through a lossless JSON5 syntax tree, so the owner's
 * comments, quoting and layout survive; the result is written to a temporary file and
 * renamed, so a crash never leaves half a config. The parser loads on first use only.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { ClawboxError } from "../errors/index.ts";

export interface ModelSettingsEdit {
  /** models.providers.<localId>.path (the provider is created as kind "local" when absent). */
  localPath?: string;
  /** Provider id of the local model; default "local". */
  localId?: string;
  primary?: string;
  fallbacks?: string[];
}

type Parser = typeof import("@croct/json5-parser");
type ObjectNode = InstanceType<Parser["JsonObjectNode"]>;

function child(
  parser: Parser,
  parent: ObjectNode,
  key: string,
  file: string,
  where: string,
): ObjectNode {
  if (!parent.has(key)) parent.set(key, {});
  const node = parent.get(key);
  if (!(node instanceof parser.JsonObjectNode)) {
    throw new ClawboxError("CONFIG_INVALID", `${file}: ${where}: must be an object`, {
      hint: "fix the config file by hand, then try again",
    });
  }
  return node;
}

/** Applies `edit` to the config file (created when absent) and returns the new text. */
export async function editModelSettings(file: string, edit: ModelSettingsEdit): Promise<string> {
  const parser: Parser = await import("@croct/json5-parser");
  const exists = existsSync(file);
  const text = exists ? readFileSync(file, "utf8") : "{}";
  let root: ObjectNode;
  try {
    root = parser.JsonParser.parse(text.trim() === "" ? "{}" : text, parser.JsonObjectNode);
  } catch (error) {
    throw new ClawboxError("CONFIG_INVALID", `${file}: not valid JSON5, left unchanged`, {
      hint: "run clawbox config check and fix the file",
      cause: error,
    });
  }
  const models = child(parser, root, "models", file, "models");
  if (edit.localPath !== undefined) {
    const id = edit.localId ?? "local";
    const providers = child(parser, models, "providers", file, "models.providers");
    const local = child(parser, providers, id, file, `models.providers.${id}`);
    if (!local.has("kind")) local.set("kind", "local");
    local.set("path", edit.localPath);
  }
  if (edit.primary !== undefined) models.set("primary", edit.primary);
  if (edit.fallbacks !== undefined) models.set("fallbacks", edit.fallbacks);
  const out = exists ? root.toString() : `${JSON.stringify(root.toJSON(), null, 2)}\n`;
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, out.endsWith("\n") ? out : `${out}\n`, { mode: 0o600 });
  renameSync(temp, file);
  return out;
}
