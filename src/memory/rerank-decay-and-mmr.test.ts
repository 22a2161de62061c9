import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MemoryTestEnv, memoryTestEnv } from "../../test/fixtures/memory-test-env.ts";
import { decayFactor, mmrSelect } from "./rerank.ts";

describe("temporal decay", () => {
  it("halves a dated note's weight per half-life and never decays undated files", () => {
    const now = Date.parse("2025-03-31T00:00:00Z");
    expect(decayFactor("2025-03-01", 30, now)).toBeCloseTo(0.5, 5);
    expect(decayFactor("2025-03-31", 30, now)).toBe(1);
    expect(decayFactor(null, 30, now)).toBe(1);
  });

  let env: MemoryTestEnv;
  beforeAll(() => {
    env = memoryTestEnv();
    env.write("memory/2024-01-10.md", "# Plan\n\nThe holiday trip plan is to visit the lake.\n");
    env.write("memory/2025-03-20.md", "# Plan\n\nThe holiday trip plan is to visit the sea.\n");
  });
  afterAll(() => env.cleanup());

  it("ranks the recent note first when enabled", async () => {
    const now = Date.parse("2025-03-31T00:00:00Z");
    const on = await env
      .memory(null, { search: { temporalDecay: { enabled: true } } })
      .search("holiday trip plan", { now });
    expect(on.results.map((r) => r.path)).toEqual(["memory/2025-03-20.md"]);
    const off = await env.memory(null).search("holiday trip plan", { now });
    expect(off.results.map((r) => r.path).sort()).toEqual([
      "memory/2024-01-10.md",
      "memory/2025-03-20.md",
    ]);
  });
});

describe("MMR", () => {
  it("prefers a different result over a near-duplicate of the first", () => {
    const item = (text: string, score: number) => ({
      text,
      score,
      noteDate: null,
      vector: undefined,
    });
    const picked = mmrSelect(
      [
        item("router password in the safe", 0.9),
        item("router password in the safe drawer", 0.88),
        item("wifi name is clawnet", 0.7),
      ],
      2,
      0.5,
    );
    expect(picked.map((p) => p.text)).toEqual([
      "router password in the safe",
      "wifi name is clawnet",
    ]);
  });
});
