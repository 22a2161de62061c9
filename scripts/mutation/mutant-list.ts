/**
 * The curated mutant list (scripts/mutation/mutants.json): each entry breaks one
 * guarantee the docs make, by replacing an exact snippet of one source file, and names
 * the test files that must notice. Loading checks the list against the tree: a snippet
 * that is not found exactly once is an error (the list went stale, or the snippet is
 * ambiguous), never a silent skip.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";

/** The areas whose guarantees the list must sample (issue 30), then the others. */
export const SAMPLED_AREAS = [
  "channels",
  "tools",
  "server",
  "console",
  "store",
  "context",
  "memory",
  "scheduler",
] as const;
export const AREAS = [...SAMPLED_AREAS, "agent", "system", "mqtt", "devices", "wyoming"] as const;

const mutantSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/, "kebab-case id"),
  area: z.enum(AREAS),
  file: z.string().startsWith("src/"),
  /** Exact text in `file`; must occur exactly once. */
  find: z.string().min(1),
  replace: z.string(),
  /** The doc that states the guarantee, and the guarantee in its words. */
  doc: z.string().regex(/^docs\/([a-z-]+\/)?[A-Za-z-]+\.md$/, "a file in docs/"),
  guarantee: z.string().min(10),
  /** Test files to run against the mutant (relative to the repository). */
  tests: z.array(z.string().regex(/\.test\.ts$/)).min(1),
  /** A survivor accepted on purpose: where the docs explain why no test kills it. */
  explained: z.optional(z.string().min(10)),
});

export type Mutant = z.infer<typeof mutantSchema>;

export const listSchema = z.array(mutantSchema).superRefine((list, ctx) => {
  const seen = new Set<string>();
  for (const [i, m] of list.entries()) {
    if (seen.has(m.id)) ctx.addIssue({ code: "custom", path: [i, "id"], message: "duplicate id" });
    seen.add(m.id);
    if (m.find === m.replace)
      ctx.addIssue({ code: "custom", path: [i, "replace"], message: "replace equals find" });
  }
});

export const DEFAULT_LIST = join(import.meta.dirname, "mutants.json");

export function loadMutants(path: string): Mutant[] {
  const parsed = listSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`${path}: ${first?.path.join(".")}: ${first?.message}`);
  }
  return parsed.data;
}

function occurrences(text: string, snippet: string): number {
  let count = 0;
  for (let at = text.indexOf(snippet); at >= 0; at = text.indexOf(snippet, at + 1)) count += 1;
  return count;
}

/** Why `mutant` cannot be applied to the tree at `root`, or undefined when it can. */
export function staleReason(root: string, mutant: Mutant): string | undefined {
  const file = join(root, mutant.file);
  if (!existsSync(file)) return `${mutant.file}: file not found`;
  const n = occurrences(readFileSync(file, "utf8"), mutant.find);
  if (n === 0) return `${mutant.file}: snippet not found (the list is stale: update "find")`;
  if (n > 1) return `${mutant.file}: snippet found ${n} times (make "find" longer)`;
  for (const test of mutant.tests)
    if (!existsSync(join(root, test))) return `${test}: test file not found`;
  if (!existsSync(join(root, mutant.doc))) return `${mutant.doc}: doc not found`;
  return undefined;
}

/** The source of `file` with the mutant applied (the snippet is known to occur once). */
export function mutatedSource(original: string, mutant: Mutant): string {
  const at = original.indexOf(mutant.find);
  return original.slice(0, at) + mutant.replace + original.slice(at + mutant.find.length);
}
