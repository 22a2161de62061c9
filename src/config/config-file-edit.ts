/**
 * Edits the box's config file (clawbox.json, JSON5) in place: the console's set-up pages,
 * pairing and `models pull` change a few keys and leave everything else as the owner
 * wrote it. The file is edited through a lossless JSON5 syntax tree, so comments, quoting
 * and layout survive; the result can be validated as a whole config before anything is
 * written (a form never leaves a config the box would refuse at its next start), and it
 * is written with the atomic writer (temp file, fsync, rename), so a power cut leaves the
 * old file or the new one. A new file is created 0600 and an existing one loses any
 * permission for other users when it is written: it holds secrets (a form may just have
 * put one there). The parser
 * loads on first use only.
 */
import { existsSync, readFileSync } from "node:fs";
import { ClawboxError } from "../errors/index.ts";
import { writeFileAtomic } from "../system/index.ts";
import { parseConfigText } from "./load-config.ts";
import type { ClawboxConfig } from "./schema.ts";

/** A JSON value the edit writes. */
export type ConfigValue =
  | string
  | number
  | boolean
  | null
  | readonly ConfigValue[]
  | { readonly [key: string]: ConfigValue };

/**
 * Sets `path` to `value` (objects on the way are created; with `ifAbsent`, only when the
 * key is not there yet), or removes the key at `path`.
 */
export type ConfigEdit =
  | { path: readonly string[]; value: ConfigValue; ifAbsent?: boolean }
  | { path: readonly string[]; remove: true };

export interface EditConfigOptions {
  /**
   * Validate the edited file as the box would load it (with these environment
   * overrides) and refuse to write one that does not validate (CONFIG_INVALID naming the
   * keys, never their values).
   */
  validate?: { env: Record<string, string | undefined> };
}

type Parser = typeof import("@croct/json5-parser");
type ObjectNode = InstanceType<Parser["JsonObjectNode"]>;

function objectAt(
  parser: Parser,
  root: ObjectNode,
  path: readonly string[],
  file: string,
  create: boolean,
): ObjectNode | undefined {
  let node = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i] as string;
    if (!node.has(key)) {
      if (!create) return undefined;
      node.set(key, {});
    }
    const next = node.get(key);
    if (!(next instanceof parser.JsonObjectNode)) {
      throw new ClawboxError(
        "CONFIG_INVALID",
        `${file}: ${path.slice(0, i + 1).join(".")}: must be an object`,
        { hint: "fix the config file by hand, then try again" },
      );
    }
    node = next;
  }
  return node;
}

/**
 * The config file's text with `edits` applied (nothing is written), validated when
 * `validate` is given: what `editConfigFile` would write, and the config it would load.
 */
export async function previewConfigEdit(
  file: string,
  edits: readonly ConfigEdit[],
  options: EditConfigOptions = {},
): Promise<{ text: string; config?: ClawboxConfig }> {
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
  for (const edit of edits) {
    const key = edit.path.at(-1);
    if (key === undefined) continue;
    const parentPath = edit.path.slice(0, -1);
    if ("remove" in edit) {
      objectAt(parser, root, parentPath, file, false)?.delete(key);
    } else {
      const parent = objectAt(parser, root, parentPath, file, true) as ObjectNode;
      if (!(edit.ifAbsent && parent.has(key)))
        parent.set(key, edit.value as Parameters<ObjectNode["set"]>[1]);
    }
  }
  const edited = exists ? root.toString() : `${JSON.stringify(root.toJSON(), null, 2)}\n`;
  const out = edited.endsWith("\n") ? edited : `${edited}\n`;
  if (!options.validate) return { text: out };
  return { text: out, config: parseConfigText(out, file, options.validate.env).config };
}

/** Applies `edits` to the config file (created when absent) and returns the new text. */
export async function editConfigFile(
  file: string,
  edits: readonly ConfigEdit[],
  options: EditConfigOptions = {},
): Promise<string> {
  const { text } = await previewConfigEdit(file, edits, options);
  writeFileAtomic(file, text, { mode: 0o600, clearModeBits: 0o007 });
  return text;
}
