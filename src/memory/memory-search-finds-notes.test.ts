import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  loadTinyEmbedder,
  type MemoryTestEnv,
  memoryTestEnv,
} from "../../test/fixtures/memory-test-env.ts";
import { createMemoryTools, type Embedder } from "./index.ts";

let env: MemoryTestEnv;
let embedder: Embedder;
let modelDir: string;

beforeAll(async () => {
  modelDir = mkdtempSync(join(tmpdir(), "clawbox-tiny-model-"));
  embedder = await loadTinyEmbedder(modelDir, {
    synonyms: [
      ["car", "automobile", "vehicle"],
      ["bought", "purchased", "buy"],
    ],
  });
  env = memoryTestEnv();
  env.write(
    "MEMORY.md",
    "# Memory\n\n- Alice prefers tea, never coffee.\n- The router password is in the safe.\n",
  );
  env.write("memory/2025-03-01.md", "# Saturday\n\nbought new car\n");
  env.write("memory/2025-03-02.md", "# Garden\n\nThe zebra plant needs water every friday.\n");
  env.write("memory/2025-03-03.md", "# 周六\n\n周六要带猫去看兽医，预约在上午十点。\n");
  env.write("memory/2025-03-04.md", "# Music\n\nviolin lesson with grace on monday evening.\n");
});

afterAll(async () => {
  await embedder.close();
  env.cleanup();
  rmSync(modelDir, { recursive: true, force: true });
});

describe("memory search", () => {
  it("finds a note by keyword without an embedding model and says it is keyword-only", async () => {
    const memory = env.memory(null);
    const res = await memory.search("zebra plant");
    expect(res.mode).toBe("keyword");
    expect(res.reason).toContain("no embedding model");
    expect(res.results[0]?.path).toBe("memory/2025-03-02.md");
    expect(res.results[0]?.startLine).toBe(1);
    expect(res.results[0]?.snippet).toContain("zebra plant");
  });

  it("finds a note by vector alone when no word matches (synonyms the model makes similar)", async () => {
    const keywordOnly = await env.memory(null).search("purchased automobile");
    expect(keywordOnly.results).toHaveLength(0);
    const res = await env.memory(embedder).search("purchased automobile");
    expect(res.mode).toBe("hybrid");
    expect(res.results[0]?.path).toBe("memory/2025-03-01.md");
    expect(res.results[0]?.textScore).toBe(0);
    expect(res.results[0]?.vectorScore ?? 0).toBeGreaterThan(0.5);
    // Only the note that shares meaning clears the minimum score.
    expect(res.results.map((r) => r.path)).toEqual(["memory/2025-03-01.md"]);
  });

  it("ranks by vector and keyword together in hybrid mode", async () => {
    const res = await env.memory(embedder).search("violin lesson");
    expect(res.mode).toBe("hybrid");
    const top = res.results[0];
    expect(top?.path).toBe("memory/2025-03-04.md");
    expect(top?.textScore ?? 0).toBeGreaterThan(0.5);
    expect(top?.vectorScore ?? 0).toBeGreaterThan(0.3);
    expect(top?.score).toBeCloseTo(0.7 * (top?.vectorScore ?? 0) + 0.3 * (top?.textScore ?? 0), 2);
    expect(res.results.length).toBeLessThanOrEqual(6);
    for (const r of res.results) expect(r.score).toBeGreaterThanOrEqual(0.35);
  });

  it("finds a Chinese note with a Chinese query, long and short (< 3 characters)", async () => {
    for (const memory of [env.memory(null), env.memory(embedder)]) {
      const long = await memory.search("带猫去看兽医");
      expect(long.results[0]?.path).toBe("memory/2025-03-03.md");
      const short = await memory.search("兽医");
      expect(short.results[0]?.path).toBe("memory/2025-03-03.md");
    }
  });

  it("memory_get reads a line range of a memory file and refuses anything else", async () => {
    const memory = env.memory(embedder);
    const [, get] = memory.tools;
    const ctx = {
      sessionId: "s",
      sessionKey: "k",
      isOwner: true,
      workspace: env.workspace,
      signal: new AbortController().signal,
    };
    const ok = await get?.execute({ path: "MEMORY.md", from: 3, lines: 1 }, ctx);
    expect(ok?.isError).toBeUndefined();
    expect(ok?.content[0]).toMatchObject({ type: "text" });
    const body = ok?.content[0]?.type === "text" ? ok.content[0].text : "";
    expect(body).toContain("Alice prefers tea");
    expect(body).not.toContain("router");
    for (const path of ["../etc/passwd", "SOUL.md", "/etc/hostname", "memory/../SOUL.md"]) {
      const denied = await get?.execute({ path }, ctx);
      expect(denied?.isError).toBe(true);
    }
  });

  it("memory_search tool returns mode and results and rejects an empty query", async () => {
    const [search] = createMemoryTools({
      workspace: env.workspace,
      search: (q, o) => env.memory(null).search(q, o),
    });
    const ctx = {
      sessionId: "s",
      sessionKey: "k",
      isOwner: true,
      workspace: env.workspace,
      signal: new AbortController().signal,
    };
    expect(search?.description).toContain("Mandatory recall step");
    const out = await search?.execute({ query: "router password" }, ctx);
    const body = JSON.parse(out?.content[0]?.type === "text" ? out.content[0].text : "{}") as {
      mode: string;
      results: { path: string }[];
    };
    expect(body.mode).toBe("keyword");
    expect(body.results[0]?.path).toBe("MEMORY.md");
    const bad = await search?.execute({ query: "  " }, ctx);
    expect(bad?.isError).toBe(true);
  });
});
