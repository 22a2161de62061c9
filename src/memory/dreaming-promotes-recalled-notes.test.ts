import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MemoryTestEnv, memoryTestEnv } from "../../test/fixtures/memory-test-env.ts";
import { DREAM_PRESETS, dreamPlan } from "./index.ts";

let env: MemoryTestEnv;

beforeAll(() => {
  env = memoryTestEnv();
  env.write("MEMORY.md", "# Memory\n\n- Carol's birthday is on 12 May.\n");
  env.write(
    "memory/2025-04-01.md",
    "# Dentist\n\nDentist appointment moved to thursday 9:00 at the city clinic.\n",
  );
  env.write(
    "memory/2025-04-02.md",
    "# Heating\n\nHeating schedule: the boiler starts at 06:30 on weekdays.\n",
  );
  env.write("memory/2025-04-03.md", "# Birthday\n\nCarol's birthday is on 12 May.\n");
});
afterAll(() => env.cleanup());

describe("recall tracking and dreaming", () => {
  it("records every search (query, hits, scores) without making the caller wait", async () => {
    const memory = env.memory(null);
    const res = await memory.search("dentist appointment");
    const before = env.store.db.query("SELECT count(*) AS n FROM memory_recalls").get() as {
      n: number;
    };
    expect(before.n).toBe(0); // written after the search returned
    await memory.flush();
    const rows = env.store.db
      .query(
        "SELECT r.query, h.path, h.score FROM memory_recalls r JOIN memory_recall_hits h ON h.recall_id = r.id",
      )
      .all() as { query: string; path: string; score: number }[];
    expect(rows[0]).toEqual({
      query: "dentist appointment",
      path: "memory/2025-04-01.md",
      score: res.results[0]?.score,
    });
  });

  it("promotes a note recalled 3 times by 2 queries, not one recalled 3 times by one query", async () => {
    const memory = env.memory(null);
    // dentist: 3 recalls with 2 distinct queries (one more besides the test above)
    await memory.search("dentist appointment");
    await memory.search("When is the city clinic visit?");
    // heating: 3 recalls of the same query (case/punctuation differences do not count)
    await memory.search("boiler schedule");
    await memory.search("Boiler schedule!");
    await memory.search("boiler   schedule");
    // birthday: recalled often by different queries, but MEMORY.md already has the line
    await memory.search("Carol birthday");
    await memory.search("when is carol's birthday");
    await memory.search("birthday in May");
    const report = await memory.dream();
    const byPath = new Map(report.candidates.map((c) => [c.path, c]));
    expect(byPath.get("memory/2025-04-01.md")?.promoted).toBe(true);
    expect(byPath.get("memory/2025-04-02.md")?.promoted).toBe(false);
    expect(byPath.get("memory/2025-04-02.md")?.decision).toContain("distinct queries 1 < 2");
    expect(report.promotedLines).toEqual([
      "Dentist appointment moved to thursday 9:00 at the city clinic.",
    ]);

    const memoryMd = readFileSync(join(env.workspace, "MEMORY.md"), "utf8");
    expect(memoryMd).toContain("- Dentist appointment moved to thursday 9:00 at the city clinic.");
    expect(memoryMd).not.toContain("boiler");
    expect(memoryMd.match(/Carol's birthday is on 12 May/g)).toHaveLength(1);
    const dreams = readFileSync(join(env.workspace, "DREAMS.md"), "utf8");
    expect(dreams).toContain("PROMOTED memory/2025-04-01.md");
    expect(dreams).toContain("kept memory/2025-04-02.md");

    // A second run neither re-promotes nor duplicates.
    await memory.search("dentist appointment");
    const second = await memory.dream();
    expect(second.promotedLines).toEqual([]);
    const after = readFileSync(join(env.workspace, "MEMORY.md"), "utf8");
    expect(after.match(/Dentist appointment moved/g)).toHaveLength(1);
  });

  it("has the documented presets and lets config override them", () => {
    expect(DREAM_PRESETS.core).toEqual({
      cron: "0 3 * * *",
      minScore: 0.75,
      minRecallCount: 3,
      minUniqueQueries: 2,
    });
    expect(DREAM_PRESETS.deep).toMatchObject({
      minScore: 0.8,
      minRecallCount: 3,
      minUniqueQueries: 3,
    });
    expect(DREAM_PRESETS.rem).toMatchObject({
      minScore: 0.85,
      minRecallCount: 4,
      minUniqueQueries: 3,
    });
    expect(dreamPlan({ enabled: true, preset: "rem", minScore: 0.9 })).toMatchObject({
      cron: "0 */6 * * *",
      minScore: 0.9,
      minRecallCount: 4,
    });
  });
});
