import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MemoryTestEnv, memoryTestEnv } from "../../test/fixtures/memory-test-env.ts";
import { memoryDoctorChecks, memoryStartupBudget } from "./index.ts";

let env: MemoryTestEnv;
beforeAll(() => {
  env = memoryTestEnv();
});
afterAll(() => env.cleanup());

describe("MEMORY.md startup budget", () => {
  it("says when the injected copy would be truncated, with advice, and leaves the file untouched", () => {
    const big = `# Memory\n\n${"- a durable fact about the household and its routines\n".repeat(600)}`;
    env.write("MEMORY.md", big);
    const report = memoryStartupBudget(env.workspace, 20000);
    expect(report).toMatchObject({
      file: "MEMORY.md",
      rawChars: big.length,
      budgetChars: 20000,
      truncated: true,
      injectedChars: 18000,
    });
    expect(report.advice).toContain("memory/YYYY-MM-DD.md");
    expect(report.advice).toContain("context.bootstrapMaxChars");
    expect(readFileSync(join(env.workspace, "MEMORY.md"), "utf8")).toBe(big);
    expect(memoryStartupBudget(env.workspace, 100000).truncated).toBe(false);
  });

  it("doctor checks report keyword-only mode, the index and the truncation", async () => {
    const memory = env.memory(null);
    await memory.index();
    const checks = await memoryDoctorChecks(memory, 20000);
    const byName = new Map(checks.map((c) => [c.name, c]));
    expect(byName.get("memory.sqlite-vec")?.status).toBe("ok");
    expect(byName.get("memory.embedding")).toMatchObject({ status: "warn" });
    expect(byName.get("memory.index")?.message).toContain("1 file(s)");
    expect(byName.get("memory.startup-budget")).toMatchObject({ status: "warn" });
    expect(byName.get("memory.startup-budget")?.fix).toContain("memory_search");
  });
});

describe("memory watcher", () => {
  it("re-indexes a note edited on disk without an explicit index call", async () => {
    const memory = env.memory(null, { watch: true });
    await memory.start();
    env.write("memory/2025-06-01.md", "# Bike\n\nThe bicycle lock code is kept in the drawer.\n");
    let found = false;
    for (let i = 0; i < 40 && !found; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const row = env.store.db
        .query("SELECT count(*) AS n FROM memory_chunks WHERE path = 'memory/2025-06-01.md'")
        .get() as {
        n: number;
      };
      found = row.n > 0;
    }
    expect(found).toBe(true);
    await memory.close();
  });
});
