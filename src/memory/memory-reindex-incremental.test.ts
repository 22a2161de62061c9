import { mkdtempSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  countCalls,
  loadTinyEmbedder,
  type MemoryTestEnv,
  memoryTestEnv,
} from "../../test/fixtures/memory-test-env.ts";
import type { Embedder } from "./index.ts";

let modelDir: string;
let embedderA: Embedder;
let embedderB: Embedder;

beforeAll(async () => {
  modelDir = mkdtempSync(join(tmpdir(), "clawbox-tiny-model-"));
  embedderA = await loadTinyEmbedder(join(modelDir, "a"), { name: "tiny-a", dimension: 64 });
  embedderB = await loadTinyEmbedder(join(modelDir, "b"), {
    name: "tiny-b",
    dimension: 32,
    quantized: true,
  });
});

afterAll(async () => {
  await embedderA.close();
  await embedderB.close();
  rmSync(modelDir, { recursive: true, force: true });
});

const longNote = (topic: string, n: number) =>
  `# ${topic}\n\n${Array.from({ length: n }, (_, i) => `- ${topic} item ${i}: the team decided on plan ${i} for the project.`).join("\n")}\n`;

describe("incremental re-index", () => {
  let env: MemoryTestEnv;
  beforeAll(() => {
    env = memoryTestEnv();
  });
  afterAll(() => env.cleanup());

  it("embeds everything once, then only the chunks of an edited file", async () => {
    env.write("MEMORY.md", "# Memory\n\n- Bob likes green tea.\n");
    env.write("memory/2025-01-01.md", longNote("garden", 60));
    env.write("memory/2025-01-02.md", longNote("kitchen", 60));
    const counting = countCalls(embedderA);
    const memory = env.memory(counting);
    const first = await memory.index();
    expect(first.files).toBe(3);
    expect(first.chunksAdded).toBeGreaterThan(3);
    expect(first.embedded).toBe(first.chunksAdded);
    expect(counting.seen).toHaveLength(first.chunksAdded);

    const again = await memory.index();
    expect(again.changedFiles).toBe(0);
    expect(again.embedded).toBe(0);

    const kitchenBefore = env.store.db
      .query("SELECT count(*) AS n FROM memory_chunks WHERE path = 'memory/2025-01-02.md'")
      .get() as { n: number };
    counting.seen.length = 0;
    // Append to the end of one file: only its last chunk(s) change.
    env.write(
      "memory/2025-01-02.md",
      `${longNote("kitchen", 60)}- new: the oven was repaired on tuesday.\n`,
    );
    const edited = await memory.index();
    expect(edited.changedFiles).toBe(1);
    expect(edited.embedded).toBeGreaterThan(0);
    expect(edited.embedded).toBeLessThan(kitchenBefore.n);
    expect(counting.seen.every((t) => t.includes("kitchen") || t.includes("oven"))).toBe(true);
    expect(counting.seen.some((t) => t.includes("oven was repaired"))).toBe(true);
    expect(counting.seen.some((t) => t.includes("garden"))).toBe(false);

    const res = await memory.search("oven repaired");
    expect(res.results[0]?.path).toBe("memory/2025-01-02.md");
  });

  it("drops the chunks of a deleted file", async () => {
    const memory = env.memory(embedderA);
    unlinkSync(join(env.workspace, "memory/2025-01-01.md"));
    const stats = await memory.index();
    expect(stats.removedFiles).toBe(1);
    const left = env.store.db
      .query("SELECT count(*) AS n FROM memory_chunks WHERE path = 'memory/2025-01-01.md'")
      .get() as {
      n: number;
    };
    expect(left.n).toBe(0);
    const vecRows = env.store.db.query("SELECT count(*) AS n FROM memory_vec").get() as {
      n: number;
    };
    const chunks = env.store.db.query("SELECT count(*) AS n FROM memory_chunks").get() as {
      n: number;
    };
    expect(vecRows.n).toBe(chunks.n);
  });

  it("rebuilds the whole index when the embedding model (name/dimension) changes", async () => {
    const counting = countCalls(embedderB);
    const memory = env.memory(counting);
    const stats = await memory.index();
    expect(stats.rebuilt).toContain("tiny-a (64) to tiny-b (32)");
    const chunks = env.store.db.query("SELECT count(*) AS n FROM memory_chunks").get() as {
      n: number;
    };
    expect(stats.embedded).toBe(chunks.n);
    const status = await memory.status();
    expect(status.indexedModel).toEqual({ name: "tiny-b", dimension: 32 });
    expect(status.embeddedChunks).toBe(chunks.n);
    const res = await memory.search("Bob likes green tea");
    expect(res.mode).toBe("hybrid");
    expect(res.results[0]?.path).toBe("MEMORY.md");
    // Switching back finds its vectors in the embedding cache instead of recomputing.
    const back = countCalls(embedderA);
    const again = await env.memory(back).index();
    expect(again.rebuilt).toContain("tiny-b (32) to tiny-a (64)");
    expect(again.cacheHits).toBeGreaterThan(0);
  });
});
