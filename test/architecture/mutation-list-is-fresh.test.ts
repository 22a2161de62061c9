/**
 * The curated mutant list (scripts/mutation/mutants.json, `npm run mutation`) stays
 * usable as the code moves: every snippet is found exactly once in its file, every mapped
 * test file and doc exists, and the list covers the areas whose guarantees it samples.
 * A change that rewrites a guarded line fails here and names the mutant to update, so the
 * list never goes stale silently between mutation runs.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_LIST,
  loadMutants,
  SAMPLED_AREAS,
  staleReason,
} from "../../scripts/mutation/mutant-list.ts";

const ROOT = `${import.meta.dirname}/../..`;
const mutants = loadMutants(DEFAULT_LIST);

describe("the mutant list", () => {
  it("applies to the current tree: each snippet once, each test file and doc present", () => {
    const stale = mutants.flatMap((m) => {
      const why = staleReason(ROOT, m);
      return why ? [`${m.id}: ${why}`] : [];
    });
    expect(stale).toEqual([]);
  });

  it("samples at least 40 guarantees across every area the docs make promises for", () => {
    expect(mutants.length).toBeGreaterThanOrEqual(40);
    const areas = new Set(mutants.map((m) => m.area));
    for (const area of SAMPLED_AREAS) expect(areas, area).toContain(area);
  });
});
