import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configSchema } from "../config/index.ts";
import { applyMigrations, MIGRATIONS, Store } from "../store/index.ts";
import { homePaths, silentLogger } from "../system/index.ts";
import { chunkMarkdown, sha256Hex } from "./chunk-markdown.ts";
import { createMemory } from "./index.ts";

const home = mkdtempSync(join(tmpdir(), "clawbox-upgrade-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("upgrading a trigram keyword index (schema 300) to word-level terms", () => {
  it("re-segments the stored chunks, keeps the embedding cache, and answers natural questions", async () => {
    const paths = homePaths(home);
    mkdirSync(join(paths.workspace, "memory"), { recursive: true });
    const rel = "memory/2025-04-01.md";
    const content = "# 家人\n\n奶奶的生日是三月十五日，她喜欢茉莉花茶。\n";
    writeFileSync(join(paths.workspace, rel), content);
    const st = statSync(join(paths.workspace, rel));
    const config = configSchema.parse({ memory: { watch: false } });

    // A database as the previous release left it: migrations up to 300, trigram FTS.
    const old = new Database(paths.database, { create: true });
    applyMigrations(
      old,
      MIGRATIONS.filter((m) => m.version <= 300),
    );
    old.run(
      "INSERT INTO memory_files(path, hash, mtime, size, indexed_at) VALUES (?, ?, ?, ?, ?)",
      [rel, sha256Hex(content), Math.floor(st.mtimeMs), st.size, Date.now()],
    );
    const chunks = chunkMarkdown(rel, content, config.memory.chunk);
    for (const c of chunks) {
      old.run(
        `INSERT INTO memory_chunks(id, path, start_line, end_line, hash, text, tokens, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [c.id, rel, c.startLine, c.endLine, c.hash, c.text, c.tokens, Date.now()],
      );
      old.run(
        "INSERT INTO memory_embedding_cache(model, hash, embedding, created_at) VALUES (?, ?, ?, ?)",
        ["bge-small-zh", c.hash, new Uint8Array(16), Date.now()],
      );
    }
    expect(
      (
        old.query("SELECT count(*) AS n FROM memory_fts WHERE memory_fts MATCH '奶奶的'").get() as {
          n: number;
        }
      ).n,
    ).toBe(1);
    old.close();

    const store = Store.open({ path: paths.database });
    const memory = createMemory({ config, store, paths, logger: silentLogger, embedder: null });
    const stats = await memory.index();
    expect(stats.termsFilled).toBe(chunks.length);
    expect(stats.chunksAdded).toBe(0);
    const res = await memory.search("奶奶喜欢喝什么茶");
    expect(res.results[0]?.path).toBe(rel);
    const cache = store.db.query("SELECT count(*) AS n FROM memory_embedding_cache").get() as {
      n: number;
    };
    expect(cache.n).toBe(chunks.length);
    await memory.close();
    store.close();
  });
});
