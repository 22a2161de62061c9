/**
 * memory: hybrid search latency over a large index (SPEC §11: p50 ≤ 20 ms over 50,000
 * chunks, query embedding excluded), indexing throughput with embedding excluded and
 * included, and database size per 1,000 chunks.
 *
 * The corpus is generated: 500 dated notes of ~100 sections each, mixed English and
 * Chinese words, so the real chunker, FTS5 word index (bm25) and vec0 table are exercised.
 * Vectors for the 50k index are 512-dimensional (like bge-small-zh) bag-of-words
 * vectors computed in JS (fast, and texts sharing words are similar, as with a real
 * model); "embedding included" indexes a smaller corpus through the real onnxruntime
 * with the generated tiny model. Recall@6 of the binary-quantized shortlist against an
 * exact cosine scan is reported so the speed/quality trade is visible.
 *
 *   npm run bench -- memory [--json] [--chunks 50000] [--queries 200]
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { configSchema } from "../../src/config/index.ts";
import { hybridSearch } from "../../src/memory/hybrid-search.ts";
import type { Embedder } from "../../src/memory/index.ts";
import { MemoryIndex } from "../../src/memory/memory-index.ts";
import { unpackVector } from "../../src/memory/vector-table.ts";
import { Store } from "../../src/store/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { loadTinyEmbedder } from "../../test/fixtures/memory-test-env.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const argAfter = (flag: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};
const targetChunks = Number(argAfter("--chunks") ?? 50000);
const queryCount = Number(argAfter("--queries") ?? 200);
const DIM = 512;
const log = (line: string) => {
  if (!json) console.log(line);
};

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = rng(42);
const english = Array.from({ length: 3000 }, (_, i) => {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let w = "";
  const len = 3 + Math.floor(rand() * 7);
  for (let j = 0; j < len; j++) w += letters[Math.floor(rand() * 26)];
  return `${w}${i % 10}`;
});
const chinese = Array.from({ length: 1500 }, () =>
  String.fromCodePoint(0x4e00 + Math.floor(rand() * 3000), 0x4e00 + Math.floor(rand() * 3000)),
);
// Zipf-like word choice: common words repeat, rare ones make queries selective.
const pick = <T>(list: T[]) => list[Math.floor(list.length * rand() ** 2.5)] as T;

function section(): string {
  const words: string[] = [];
  const n = 50 + Math.floor(rand() * 40);
  for (let i = 0; i < n; i++) {
    // Chinese is written without spaces: a run of 2–5 two-character words.
    if (rand() < 0.2)
      words.push(Array.from({ length: 2 + Math.floor(rand() * 4) }, () => pick(chinese)).join(""));
    else words.push(pick(english));
  }
  return words.join(" ");
}

/** Bag-of-words unit vectors: texts sharing words are close, as with a real model. */
class BagOfWordsEmbedder implements Embedder {
  readonly dimension = DIM;
  private readonly cache = new Map<string, Float32Array>();
  calls = 0;
  constructor(readonly name: string) {}
  private word(w: string): Float32Array {
    let v = this.cache.get(w);
    if (!v) {
      let h = 2166136261;
      for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
      const r = rng(h);
      v = new Float32Array(DIM);
      for (let i = 0; i < DIM; i++) v[i] = r() * 2 - 1;
      this.cache.set(w, v);
    }
    return v;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls += texts.length;
    return texts.map((t) => {
      const out = new Float32Array(DIM);
      for (const w of t.split(/\s+/)) {
        if (!w || w.startsWith("#")) continue;
        const v = this.word(w);
        for (let i = 0; i < DIM; i++) out[i] = (out[i] ?? 0) + (v[i] ?? 0);
      }
      let s = 0;
      for (const x of out) s += x * x;
      const norm = Math.sqrt(s) || 1;
      for (let i = 0; i < DIM; i++) out[i] = (out[i] ?? 0) / norm;
      return out;
    });
  }
  async close(): Promise<void> {}
}

function writeCorpus(workspace: string, chunks: number): void {
  const perFile = 100;
  const files = Math.ceil(chunks / perFile);
  for (let f = 0; f < files; f++) {
    const day = new Date(Date.UTC(2020, 0, 1) + f * 86_400_000).toISOString().slice(0, 10);
    const parts: string[] = [];
    for (let s = 0; s < Math.min(perFile, chunks - f * perFile); s++)
      parts.push(`## Note ${s}\n\n${section()}\n`);
    mkdirSync(join(workspace, "memory"), { recursive: true });
    writeFileSync(join(workspace, "memory", `${day}.md`), parts.join("\n"));
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const config = configSchema.parse({});
const home = mkdtempSync(join(tmpdir(), "clawbox-bench-memory-"));

try {
  // 1. Large index, embedding excluded (vectors from the fast bag-of-words embedder).
  const workspace = join(home, "workspace");
  writeCorpus(workspace, targetChunks);
  const dbPath = join(home, "bench.db");
  const store = Store.open({ path: dbPath, requireVec: true });
  const bow = new BagOfWordsEmbedder("bench-bow-512");
  const index = new MemoryIndex({
    db: store.db,
    workspace,
    chunk: config.memory.chunk,
    embedder: bow,
    vectors: true,
    logger: silentLogger,
  });
  log(`indexing ${targetChunks} generated chunks (${DIM}-dim vectors)…`);
  const stats = await index.sync();
  const chunks = (store.db.query("SELECT count(*) AS n FROM memory_chunks").get() as { n: number })
    .n;
  // Time spent computing the JS vectors is subtracted: "embedding excluded".
  const embedStart = performance.now();
  await bow.embed(
    (store.db.query("SELECT text FROM memory_chunks LIMIT 2000").all() as { text: string }[]).map(
      (r) => r.text,
    ),
  );
  const embedMsPerChunk = (performance.now() - embedStart) / 2000;
  const indexMsExcl = Math.max(1, stats.ms - embedMsPerChunk * chunks);
  store.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  const dbBytes = statSync(dbPath).size;
  log(
    `  ${chunks} chunks in ${round(stats.ms / 1000, 1)} s (${round(indexMsExcl / 1000, 1)} s without vector computation)`,
  );

  // 2. Query latency, query embedding excluded (vectors precomputed).
  const texts = store.db
    .query("SELECT text FROM memory_chunks ORDER BY random() LIMIT ?")
    .all(queryCount) as {
    text: string;
  }[];
  const queries = texts.map((t) => {
    const words = t.text
      .split(/\s+/)
      .filter((w) => w && !w.startsWith("#") && !/^Note$|^\d+$/.test(w));
    const start = Math.floor(rand() * Math.max(1, words.length - 3));
    return words.slice(start, start + 3).join(" ");
  });
  const queryVectors = await bow.embed(queries);
  const deps = {
    db: store.db,
    settings: config.memory.search,
    embedder: bow,
    vectorsUnavailable: undefined,
  };
  for (let i = 0; i < 10; i++)
    await hybridSearch(deps, queries[i % queries.length] ?? "x", {
      queryVector: queryVectors[i % queries.length],
    });
  const hybridTimes: number[] = [];
  const hybridCpu: number[] = [];
  const keywordTimes: number[] = [];
  let found = 0;
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i] ?? "";
    const cpu0 = process.cpuUsage();
    const res = await hybridSearch(deps, q, { queryVector: queryVectors[i] });
    const cpu = process.cpuUsage(cpu0);
    hybridTimes.push(res.searchMs);
    hybridCpu.push((cpu.user + cpu.system) / 1000);
    if (res.results.some((r) => r.snippet.includes(q.split(" ")[0] ?? "\0"))) found++;
    const kw = await hybridSearch({ ...deps, embedder: undefined, vectorsUnavailable: "bench" }, q);
    keywordTimes.push(kw.searchMs);
  }
  hybridTimes.sort((a, b) => a - b);
  hybridCpu.sort((a, b) => a - b);
  keywordTimes.sort((a, b) => a - b);

  // 3. Recall@6 of the binary shortlist + rerank against an exact scan (20 queries).
  const all = store.db
    .query(
      "SELECT rowid, e.embedding FROM memory_chunks c JOIN memory_embedding_cache e ON e.hash = c.hash",
    )
    .all() as {
    rowid: number;
    embedding: Uint8Array;
  }[];
  const vectors = all.map((r) => ({ rowid: r.rowid, v: unpackVector(r.embedding) }));
  let recallHits = 0;
  let recallTotal = 0;
  const { vectorSearch } = await import("../../src/memory/vector-search.ts");
  for (let i = 0; i < 20; i++) {
    const qv = queryVectors[i];
    if (!qv) continue;
    const exact = vectors
      .map(({ rowid, v }) => {
        let s = 0;
        for (let j = 0; j < DIM; j++) s += (v[j] ?? 0) * (qv[j] ?? 0);
        return { rowid, s };
      })
      .sort((a, b) => b.s - a.s)
      .slice(0, 6)
      .map((x) => x.rowid);
    const approx = new Set(
      vectorSearch(store.db, qv, 24)
        .slice(0, 6)
        .map((h) => h.rowid),
    );
    recallHits += exact.filter((r) => approx.has(r)).length;
    recallTotal += exact.length;
  }
  store.close();

  // 4. Indexing with the generated ONNX model (real onnxruntime + tokenizer).
  const onnxChunks = Math.min(2000, targetChunks);
  const ws2 = join(home, "workspace-onnx");
  writeCorpus(ws2, onnxChunks);
  const store2 = Store.open({ path: join(home, "bench-onnx.db"), requireVec: true });
  const tiny = await loadTinyEmbedder(join(home, "tiny-model"));
  const index2 = new MemoryIndex({
    db: store2.db,
    workspace: ws2,
    chunk: config.memory.chunk,
    embedder: tiny,
    vectors: true,
    logger: silentLogger,
  });
  const onnxStats = await index2.sync();
  const onnxCount = (
    store2.db.query("SELECT count(*) AS n FROM memory_chunks").get() as { n: number }
  ).n;
  await tiny.close();
  store2.close();

  const result = {
    chunks,
    dimension: DIM,
    queries: queries.length,
    p50Ms: round(percentile(hybridTimes, 50)),
    p95Ms: round(percentile(hybridTimes, 95)),
    p50CpuMs: round(percentile(hybridCpu, 50)),
    p95CpuMs: round(percentile(hybridCpu, 95)),
    keywordOnlyP50Ms: round(percentile(keywordTimes, 50)),
    keywordOnlyP95Ms: round(percentile(keywordTimes, 95)),
    queriesWithTermInResults: round(found / queries.length, 3),
    vectorRecallAt6: round(recallHits / Math.max(1, recallTotal), 3),
    indexChunksPerSecExclEmbedding: Math.round(chunks / (indexMsExcl / 1000)),
    indexChunksPerSecInclGeneratedModel: Math.round(onnxCount / (onnxStats.ms / 1000)),
    generatedModelChunks: onnxCount,
    dbBytes,
    dbBytesPer1000Chunks: Math.round((dbBytes / chunks) * 1000),
    targetP50Ms: 20,
    loadAverage1m: round(loadavg()[0] ?? 0, 1),
    cpus: cpus().length,
  };
  if (json) console.log(JSON.stringify(result));
  else {
    console.log(
      `hybrid search over ${chunks} chunks (${queries.length} queries, query embedding excluded):`,
    );
    console.log(
      `  p50 ${result.p50Ms} ms, p95 ${result.p95Ms} ms (target p50 ≤ 20 ms); CPU time p50 ${result.p50CpuMs} ms, p95 ${result.p95CpuMs} ms`,
    );
    console.log(
      `  machine load average ${result.loadAverage1m} on ${result.cpus} CPUs while measuring`,
    );
    console.log(
      `  keyword-only p50 ${result.keywordOnlyP50Ms} ms, p95 ${result.keywordOnlyP95Ms} ms`,
    );
    console.log(
      `  vector recall@6 (binary shortlist + exact rerank vs exact scan): ${result.vectorRecallAt6}`,
    );
    console.log(
      `indexing: ${result.indexChunksPerSecExclEmbedding} chunks/s embedding excluded; ${result.indexChunksPerSecInclGeneratedModel} chunks/s with the generated ONNX model (${onnxCount} chunks)`,
    );
    console.log(
      `database: ${round(dbBytes / 1e6, 1)} MB, ${round(result.dbBytesPer1000Chunks / 1e6, 2)} MB per 1,000 chunks`,
    );
  }
} finally {
  if (!process.env.KEEP) rmSync(home, { recursive: true, force: true });
  else console.log(home);
}
