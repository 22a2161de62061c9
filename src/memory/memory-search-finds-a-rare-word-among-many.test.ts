/**
 * Hybrid search with many notes alike: 40 dinner notes share most of the query's words,
 * so the vector side's shortlist (maxResults × candidateMultiplier = 24) is full of them.
 * The one note that literally contains "saffron" is found by keyword; it must still get
 * its vector score (docs/MEMORY.md), or 0.3 × its keyword score stays under the 0.35
 * minimum and the note vanishes. The 5-note index of the other tests cannot show this.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  loadTinyEmbedder,
  type MemoryTestEnv,
  memoryTestEnv,
} from "../../test/fixtures/memory-test-env.ts";
import type { Embedder } from "./index.ts";

let env: MemoryTestEnv;
let embedder: Embedder;
let modelDir: string;

const people = ["alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi"];
const days = ["monday", "tuesday", "wednesday", "thursday", "friday"];

beforeAll(async () => {
  modelDir = mkdtempSync(join(tmpdir(), "clawbox-tiny-model-"));
  embedder = await loadTinyEmbedder(modelDir);
  env = memoryTestEnv();
  for (let i = 0; i < 40; i++) {
    const who = people[i % people.length];
    const day = days[i % days.length];
    env.write(
      `memory/2025-04-${String(i + 1).padStart(2, "0")}.md`,
      `# Dinner ${i}\n\nfamily dinner on ${day} evening with ${who}; we had food, tea and milk in the kitchen.\n`,
    );
  }
  env.write("memory/2025-05-20.md", "# Shopping\n\nbought saffron on the trip, a good price.\n");
});

afterAll(async () => {
  await embedder.close();
  env.cleanup();
  rmSync(modelDir, { recursive: true, force: true });
});

describe("memory search among many similar notes", () => {
  it("finds the one note of 41 that contains the word asked for, though 40 others are closer in meaning", async () => {
    const memory = env.memory(embedder);
    for (const query of ["saffron", "which dinner had saffron"]) {
      const res = await memory.search(query);
      expect(res.mode).toBe("hybrid");
      const top = res.results[0];
      expect(top?.path, query).toBe("memory/2025-05-20.md");
      expect(top?.snippet).toContain("bought saffron");
      expect(top?.textScore).toBe(1);
      // Scored by meaning too, though it is outside the vector side's own shortlist.
      expect(top?.vectorScore ?? 0).toBeGreaterThan(0);
    }
  });
});
