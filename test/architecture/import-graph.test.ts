/**
 * The import graph of src/ has no circles, type-only and lazy (`import()`) imports
 * included, and areas form layers: an area imports only areas in layers below its own.
 * A circle of types still ties two files' meanings together (a change to one re-checks
 * the other, and neither can be read alone); a leaf file of shared types breaks it.
 * Every area's index.ts, its public face, opens with a header saying what it offers.
 */
import { describe, expect, it } from "vitest";
import { areaOf, importsOf, shippedFiles, text } from "./source-tree.ts";

/** Top to bottom; an area may import only areas in the layers after its own. */
const LAYERS: readonly (readonly string[])[] = [
  ["cli"],
  ["server"],
  ["console"],
  ["scheduler", "wyoming"],
  ["channels", "mqtt"],
  ["agent"],
  ["devices", "mcp", "memory"],
  ["context", "doctor", "tools"],
  ["providers"],
  ["backup"],
  ["models", "pairing"],
  ["config", "media", "store", "workspace"],
  ["messages", "sessions", "system"],
  ["errors", "prompt", "schema"],
];

function edges(files: readonly string[], source?: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const found = importsOf(file, source?.get(file) ?? text.get(file) ?? "")
      .map((edge) => edge.target)
      .filter((target) => files.includes(target));
    graph.set(file, found);
  }
  return graph;
}

/** Each circle (a strongly connected group of more than one file, or a self-import). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function layerOf(area: string): number {
  return LAYERS.findIndex((layer) => layer.includes(area));
}

describe("import graph", () => {
  it("has no circles among src/ files (type-only and lazy imports included)", () => {
    expect(circles(edges(shippedFiles))).toEqual([]);
  });

  it("the circle check sees a type-only circle", () => {
    const files = ["src/a/x.ts", "src/a/y.ts", "src/a/z.ts"];
    const source = new Map([
      ["src/a/x.ts", 'import type { Y } from "./y.ts";'],
      ["src/a/y.ts", 'export type { Z } from "./z.ts";'],
      ["src/a/z.ts", 'const load = () => import("./x.ts");'],
    ]);
    expect(circles(edges(files, source))).toEqual([files]);
  });

  it("every area has a layer, and imports only areas in lower layers", () => {
    const areas = [...new Set(shippedFiles.map(areaOf))].sort();
    expect(areas.filter((area) => layerOf(area) < 0)).toEqual([]);
    const upward: string[] = [];
    for (const file of shippedFiles) {
      for (const { target } of importsOf(file)) {
        if (!target.startsWith("src/") || areaOf(target) === areaOf(file)) continue;
        if (layerOf(areaOf(target)) <= layerOf(areaOf(file))) upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("every index.ts opens with a header comment saying what the area offers", () => {
    const bare = shippedFiles.filter(
      (file) => file.endsWith("/index.ts") && !/^\/\*\*\s/.test(text.get(file) ?? ""),
    );
    expect(bare).toEqual([]);
  });
});
