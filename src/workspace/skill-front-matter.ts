/**
 * SKILL.md front matter: a `---` YAML block with `name`, `description` and optional
 * `requirements` (`env`, `bins` lists). OpenClaw skills work as they are: their
 * `metadata:` block (JSON5-style, often multi-line with trailing commas) is read with
 * json5 and its `openclaw.requires` (`env`, `bins`, `anyBins`) and `openclaw.os` decide
 * whether the skill is hidden; `description: >` folded text is plain YAML. The `yaml`
 * and `json5` libraries are imported only when skills are scanned, never at startup.
 */

import { errorMessage } from "../errors/index.ts";
import { z } from "../schema/index.ts";

const frontMatterSchema = z.object({
  name: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "letters, digits, . _ - only")),
  description: z.string().check(z.trim(), z.minLength(1, "must not be empty")),
  env: z._default(z.array(z.string()), []),
  bins: z._default(z.array(z.string()), []),
  /** At least one of these binaries must exist (OpenClaw `anyBins`). */
  anyBins: z._default(z.array(z.string()), []),
  /** Platforms the skill runs on (`process.platform` names); empty means any. */
  os: z._default(z.array(z.string()), []),
});

export type SkillFrontMatter = z.infer<typeof frontMatterSchema>;

export type ParsedFrontMatter =
  | { ok: true; value: SkillFrontMatter }
  | { ok: false; error: string };

const requiresSchema = z.catch(
  z.object({
    env: z.optional(z.array(z.coerce.string())),
    bins: z.optional(z.array(z.coerce.string())),
    anyBins: z.optional(z.array(z.coerce.string())),
  }),
  {},
);

const metadataSchema = z.catch(
  z.record(
    z.string(),
    z.catch(
      z.object({
        requires: z.optional(requiresSchema),
        os: z.optional(z.array(z.coerce.string())),
      }),
      {},
    ),
  ),
  {},
);

interface Parsers {
  parseYaml(text: string): unknown;
  parseJson5(text: string): unknown;
}

let parsers: Promise<Parsers> | undefined;

function loadParsers(): Promise<Parsers> {
  parsers ??= Promise.all([import("yaml"), import("json5")]).then(([yaml, json5]) => ({
    parseYaml: (text) => yaml.parse(text),
    parseJson5: (text) => json5.default.parse(text),
  }));
  return parsers;
}

/** The `metadata:` entry's text (its value and indented lines), and the rest of the block. */
function splitMetadata(block: string): { metadata: string | undefined; rest: string } {
  const lines = block.split(/\r?\n/);
  const start = lines.findIndex((line) => /^metadata\s*:/.test(line));
  if (start < 0) return { metadata: undefined, rest: block };
  const first = (lines[start] ?? "").replace(/^metadata\s*:/, "");
  // A YAML block scalar (`metadata: |`) is left to YAML; its string is read with json5.
  if (/^\s*[|>]/.test(first)) return { metadata: undefined, rest: block };
  let end = start + 1;
  while (end < lines.length && /^(\s|$)/.test(lines[end] ?? "")) end += 1;
  return {
    metadata: [first, ...lines.slice(start + 1, end)].join("\n"),
    rest: [...lines.slice(0, start), ...lines.slice(end)].join("\n"),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function firstErrorLine(error: unknown): string {
  return errorMessage(error).split("\n")[0] ?? "";
}

export async function parseSkillFrontMatter(text: string): Promise<ParsedFrontMatter> {
  const block = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/.exec(text);
  if (!block) return { ok: false, error: "no front matter (--- block with name and description)" };
  const { parseYaml, parseJson5 } = await loadParsers();
  const { metadata: metadataText, rest } = splitMetadata(block[1] ?? "");
  let data: unknown;
  try {
    data = parseYaml(rest) ?? {};
  } catch (error) {
    return { ok: false, error: `front matter is not valid YAML: ${firstErrorLine(error)}` };
  }
  if (!isRecord(data)) return { ok: false, error: "front matter must be key: value lines" };
  let metadata: unknown = data.metadata;
  if (metadataText !== undefined && metadataText.trim() !== "") {
    try {
      metadata = parseJson5(metadataText);
    } catch (error) {
      // Not JSON5 (e.g. a trailing `# comment` or YAML block style): read it as YAML.
      try {
        const yaml = parseYaml(`metadata:${metadataText}`);
        metadata = isRecord(yaml) ? yaml.metadata : undefined;
      } catch {
        return { ok: false, error: `metadata is not valid JSON5: ${firstErrorLine(error)}` };
      }
    }
  } else if (typeof metadata === "string") {
    try {
      metadata = parseJson5(metadata);
    } catch (error) {
      return { ok: false, error: `metadata is not valid JSON5: ${firstErrorLine(error)}` };
    }
  }
  const meta = metadataSchema.parse(metadata ?? {});
  const fromMeta = meta.openclaw ?? meta.clawbox ?? {};
  const requirements = requiresSchema.parse(data.requirements ?? {});
  const list = (value: unknown): string[] =>
    Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : [];
  const parsed = frontMatterSchema.safeParse({
    name: data.name,
    description: data.description,
    env: [...(requirements.env ?? []), ...list(data.env), ...(fromMeta.requires?.env ?? [])],
    bins: [...(requirements.bins ?? []), ...list(data.bins), ...(fromMeta.requires?.bins ?? [])],
    anyBins: [...(requirements.anyBins ?? []), ...(fromMeta.requires?.anyBins ?? [])],
    os: fromMeta.os ?? [],
  });
  if (!parsed.success) {
    return {
      ok: false,
      error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
    };
  }
  return { ok: true, value: parsed.data };
}
