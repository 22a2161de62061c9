/**
 * The source tree keeps the shape docs/DEVELOPING.md describes: an area reaches another
 * only through its index.ts, test-only code lives under test/, an area exports nothing
 * that no one uses, and usage cost is computed in one place. Read from the files
 * themselves (static and dynamic relative imports).
 */
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { allFiles, areaOf, importsOf, isTest, sourceFiles, text } from "./source-tree.ts";

/** Started by bin/clawbox (a shell script), so no .ts file imports it. */
const ENTRY_POINTS = new Set(["src/cli/main.ts"]);

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
