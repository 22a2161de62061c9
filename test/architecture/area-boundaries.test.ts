/**
 * The source tree keeps the shape docs/DEVELOPING.md describes: an area reaches another
 * only through its index.ts, test-only code lives under test/, an area exports nothing
 * that no one uses, and usage cost is computed in one place. Read from the files
 * themselves (static and dynamic relative imports).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

function walk(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? walk(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

const sourceFiles = walk("src");
const allFiles = [...sourceFiles, ...walk("test"), ...walk("scripts")];
const text = new Map(allFiles.map((file) => [file, readFileSync(join(ROOT, file), "utf8")]));
const isTest = (file: string) => file.endsWith(".test.ts") || !file.startsWith("src/");
/** Started by bin/clawbox (a shell script), so no .ts file imports it. */
const ENTRY_POINTS = new Set(["src/cli/main.ts"]);

/** Relative imports of `file`, resolved to repository paths, with the names imported. */
function importsOf(file: string): { target: string; names: string[] }[] {
  const found: { target: string; names: string[] }[] = [];
  const pattern =
    /(?:import|export)\s+(?:type\s+)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+)?\s*(?:,\s*\{[^}]*\})?\s*from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g;
  for (const match of (text.get(file) ?? "").matchAll(pattern)) {
    const spec = match[2] ?? match[3];
    if (!spec) continue;
    const names = (match[1] ?? "*")
      .replace(/[{}]/g, "")
      .split(",")
      .map((part) =>
        part
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0]
          ?.trim(),
      )
      .filter((name): name is string => Boolean(name));
    found.push({ target: normalize(join(dirname(file), spec)), names: match[3] ? ["*"] : names });
  }
  return found;
}

const areaOf = (file: string) => file.split("/")[1] ?? "";

describe("source tree boundaries", () => {
  it("an area imports another area only through that area's index.ts", () => {
    const crossings: string[] = [];
    for (const file of sourceFiles.filter((f) => !isTest(f))) {
      for (const { target } of importsOf(file)) {
        if (!target.startsWith("src/") || areaOf(target) === areaOf(file)) continue;
        if (target === `src/${areaOf(target)}/index.ts`) continue;
        crossings.push(`${file} -> ${target}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it("code used only by tests lives under test/, not src/", () => {
    const importers = new Map<string, string[]>();
    for (const file of allFiles) {
      for (const { target } of importsOf(file)) {
        importers.set(target, [...(importers.get(target) ?? []), file]);
      }
    }
    const testOnly = sourceFiles.filter((file) => {
      // An area's index.ts may land before the code that calls it (tests use it first).
      if (isTest(file) || ENTRY_POINTS.has(file) || file.endsWith("/index.ts")) return false;
      const users = importers.get(file) ?? [];
      return users.length > 0 && users.every(isTest);
    });
    expect(testOnly).toEqual([]);
  });

  it("every class an area's index.ts exports is used outside its own file", () => {
    const unused: string[] = [];
    for (const index of sourceFiles.filter((f) => /^src\/[^/]+\/index\.ts$/.test(f))) {
      for (const { target, names } of importsOf(index)) {
        for (const name of names) {
          const declared = new RegExp(`export (?:abstract )?class ${name}\\b`);
          if (!declared.test(text.get(target) ?? "")) continue;
          const used = allFiles.some(
            (file) =>
              file !== target &&
              file !== index &&
              new RegExp(`\\b${name}\\b`).test(text.get(file) ?? ""),
          );
          if (!used) unused.push(`${relative("src", target)}: ${name}`);
        }
      }
    }
    expect(unused).toEqual([]);
  });

  it("usage cost (tokens x price per million) is computed in one file", () => {
    const pricing = sourceFiles.filter(
      (file) => !isTest(file) && /cacheWrite\s*\*[^\n]*\/\s*1e6/.test(text.get(file) ?? ""),
    );
    expect(pricing).toEqual(["src/providers/usage-cost.ts"]);
  });

  it("yaml, node-llama-cpp and onnxruntime load only on first use (no static value import)", () => {
    const staticImports = sourceFiles.filter(
      (file) =>
        !isTest(file) &&
        /^import\s+(?!type\b)[^;]*from\s+"(yaml|node-llama-cpp|onnxruntime-node)"/m.test(
          text.get(file) ?? "",
        ),
    );
    expect(staticImports).toEqual([]);
  });

  it("src/ builds schemas with zod/mini through src/schema only (classic zod never loads)", () => {
    const zodImports = sourceFiles.filter(
      (file) =>
        !isTest(file) &&
        file !== "src/schema/index.ts" &&
        /(?:from\s+|import\(\s*)"zod(?:\/[^"]*)?"/.test(text.get(file) ?? ""),
    );
    expect(zodImports).toEqual([]);
    expect(text.get("src/schema/index.ts")).toMatch(/from "zod\/mini"/);
    expect(text.get("src/schema/index.ts")).not.toMatch(/from "zod"/);
  });
});
