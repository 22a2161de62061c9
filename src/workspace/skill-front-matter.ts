/**
 * SKILL.md front matter: a `---` block with `name`, `description` and optional
 * `requirements` (`env` and `bins` lists, inline `[a, b]` or as `- a` items). OpenClaw's
 * `metadata: {"openclaw":{"requires":{...}}}` JSON form is accepted too, so OpenClaw
 * skills work as is. Only this YAML subset is understood; anything else is ignored.
 */
import * as z from "zod";

const frontMatterSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "letters, digits, . _ - only"),
  description: z.string().min(1, "must not be empty"),
  env: z.array(z.string()).default([]),
  bins: z.array(z.string()).default([]),
});

export type SkillFrontMatter = z.infer<typeof frontMatterSchema>;

export type ParsedFrontMatter =
  | { ok: true; value: SkillFrontMatter }
  | { ok: false; error: string };

const unquote = (v: string): string => v.trim().replace(/^(["'])(.*)\1$/, "$2");

function inlineList(value: string): string[] | undefined {
  const m = /^\[(.*)\]$/.exec(value.trim());
  if (!m) return undefined;
  return (m[1] ?? "")
    .split(",")
    .map(unquote)
    .filter((s) => s.length > 0);
}

function fromMetadata(json: string, into: { env: string[]; bins: string[] }): void {
  try {
    const meta = JSON.parse(json) as Record<
      string,
      { requires?: { env?: unknown; bins?: unknown } }
    >;
    const requires = (meta.openclaw ?? meta.clawbox)?.requires;
    if (Array.isArray(requires?.env)) into.env.push(...requires.env.map(String));
    if (Array.isArray(requires?.bins)) into.bins.push(...requires.bins.map(String));
  } catch {
    // Not JSON: ignored like any other unknown key.
  }
}

export function parseSkillFrontMatter(text: string): ParsedFrontMatter {
  const block = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/.exec(text);
  if (!block) return { ok: false, error: "no front matter (--- block with name and description)" };
  const fields: Record<string, string> = {};
  const lists: { env: string[]; bins: string[] } = { env: [], bins: [] };
  let listKey: "env" | "bins" | undefined;
  for (const line of (block[1] ?? "").split(/\r?\n/)) {
    const item = /^\s+-\s+(.*)$/.exec(line);
    if (item && listKey) {
      lists[listKey].push(unquote(item[1] ?? ""));
      continue;
    }
    const kv = /^(\s*)([A-Za-z_]+)\s*:\s*(.*)$/.exec(line);
    if (!kv) continue;
    const [, indent = "", key = "", value = ""] = kv;
    listKey = undefined;
    if (key === "env" || key === "bins") {
      const inline = inlineList(value);
      if (inline) lists[key].push(...inline);
      else if (value.trim() === "") listKey = key;
      else lists[key].push(unquote(value));
    } else if (key === "metadata") {
      fromMetadata(value, lists);
    } else if (indent === "") {
      fields[key] = unquote(value);
    }
  }
  const parsed = frontMatterSchema.safeParse({ ...fields, env: lists.env, bins: lists.bins });
  if (!parsed.success) {
    return {
      ok: false,
      error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
    };
  }
  return { ok: true, value: parsed.data };
}
