/**
 * The repository's TypeScript files as the architecture tests read them: the text of
 * every file under src/, test/ and scripts/, the relative imports of each (static and
 * dynamic, with the names imported) and a file's code without its comments. Read once
 * per test file; nothing here runs the code it reads.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

/** Files under `dir` (relative to the repository) whose names match `pattern`. */
export function walk(dir: string, pattern = /\.ts$/): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? walk(join(dir, entry.name), pattern)
      : pattern.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

export const sourceFiles = walk("src");
export const allFiles = [...sourceFiles, ...walk("test"), ...walk("scripts")];
export const text = new Map(allFiles.map((file) => [file, readFileSync(join(ROOT, file), "utf8")]));
export const isTest = (file: string) => file.endsWith(".test.ts") || !file.startsWith("src/");
/** src/ files that ship (tests beside the code left out). */
export const shippedFiles = sourceFiles.filter((file) => !isTest(file));
export const areaOf = (file: string) => file.split("/")[1] ?? "";

export interface ImportEdge {
  target: string;
  names: string[];
  /** `import type …` / `export type …`: erased at build time, still a dependency to read. */
  typeOnly: boolean;
}

/** Relative imports of `file` (its text from `source`, default the repository's). */
export function importsOf(file: string, source = text.get(file) ?? ""): ImportEdge[] {
  const found: ImportEdge[] = [];
  const pattern =
    /(?:import|export)\s+(type\s+)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+)?\s*(?:,\s*\{[^}]*\})?\s*from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g;
  for (const match of source.matchAll(pattern)) {
    const spec = match[3] ?? match[4];
    if (!spec) continue;
    const parts = (match[2] ?? "*").replace(/[{}]/g, "").split(",");
    const names = parts
      .map((part) =>
        part
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0]
          ?.trim(),
      )
      .filter((name): name is string => Boolean(name));
    const allTypes =
      Boolean(match[1]) ||
      (match[2]?.startsWith("{") === true &&
        parts.filter((p) => p.trim()).every((p) => /^\s*type\s/.test(p)));
    found.push({
      target: normalize(join(dirname(file), spec)),
      names: match[4] ? ["*"] : names,
      typeOnly: allTypes,
    });
  }
  return found;
}

/** The file's lines without comments (block, JSDoc and line comments). */
export function codeLines(source: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  let inBlock = false;
  source.split("\n").forEach((raw, index) => {
    let code = raw;
    if (inBlock) {
      const end = code.indexOf("*/");
      if (end < 0) return;
      code = code.slice(end + 2);
      inBlock = false;
    }
    code = code.replace(/\/\*.*?\*\//g, "");
    const start = code.indexOf("/*");
    if (start >= 0) {
      inBlock = true;
      code = code.slice(0, start);
    }
    code = code.replace(/(^|[^:"'`])\/\/.*$/, "$1");
    if (code.trim()) out.push({ line: index + 1, code });
  });
  return out;
}
