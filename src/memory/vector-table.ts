/**
 * The sqlite-vec side of the index. vec0 holds binary-quantized embeddings
 * (`bit[dim]`, 1 bit per dimension): a Hamming scan over 50k chunks takes a few
 * milliseconds where a float scan takes ~30 ms on a small CPU. Every shortlisted
 * candidate is re-ranked by cosine on its int8 vector (memory_chunk_vectors), so results
 * for small indexes (≤ the shortlist) are exact; for large ones see the benchmark's recall.
 * The table is tied to one model: a different name or dimension drops it.
 */
import type { Database } from "bun:sqlite";
import { ClawboxError } from "../errors/index.ts";

export interface ModelStamp {
  name: string;
  dimension: number;
}

function meta(db: Database, key: string): string | undefined {
  const row = db.query("SELECT value FROM memory_meta WHERE key = ?").get(key) as {
    value: string;
  } | null;
  return row?.value;
}

function setMeta(db: Database, key: string, value: string): void {
  db.run(
    "INSERT INTO memory_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    [key, value],
  );
}

export function indexedModel(db: Database): ModelStamp | undefined {
  const name = meta(db, "embedding_model");
  const dim = meta(db, "embedding_dimension");
  return name && dim ? { name, dimension: Number(dim) } : undefined;
}

export function vectorTableExists(db: Database): boolean {
  return db.query("SELECT 1 FROM sqlite_master WHERE name = 'memory_vec'").get() !== null;
}

/**
 * Makes the vec0 table match `model`. Returns the reason when the index had to be
 * reset (model name or dimension changed), undefined when it already matched.
 */
export function ensureVectorTable(db: Database, model: ModelStamp): string | undefined {
  if (model.dimension % 8 !== 0) {
    throw new ClawboxError(
      "MEMORY_INDEX_FAILED",
      `embedding model ${model.name}: dimension ${model.dimension} is not a multiple of 8`,
      { hint: "binary-quantized vec0 columns need a multiple of 8; use another model" },
    );
  }
  const current = indexedModel(db);
  const same = current && current.name === model.name && current.dimension === model.dimension;
  if (same && vectorTableExists(db)) return undefined;
  const reason = current
    ? `embedding model changed from ${current.name} (${current.dimension}) to ${model.name} (${model.dimension})`
    : vectorTableExists(db)
      ? "embedding model unknown"
      : undefined;
  db.transaction(() => {
    db.run("DROP TABLE IF EXISTS memory_vec");
    db.run(`CREATE VIRTUAL TABLE memory_vec USING vec0(embedding bit[${model.dimension}])`);
    db.run("UPDATE memory_chunks SET embedded = 0");
    db.run("DELETE FROM memory_chunk_vectors");
    setMeta(db, "embedding_model", model.name);
    setMeta(db, "embedding_dimension", String(model.dimension));
  })();
  return reason ?? (current ? undefined : "first index with an embedding model");
}

/** Raw float32 bytes, as vec0 and vec_quantize_binary take them. */
export function vectorBlob(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/**
 * Cache encoding of a unit vector: a float32 scale followed by one int8 per dimension.
 * A quarter of float32's size (a 512-dim vector is 516 bytes, so several fit a page);
 * the cosine error it adds is far below the differences that rank results.
 */
export function packVector(v: Float32Array): Uint8Array {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  const scale = max / 127 || 1;
  const out = new Uint8Array(4 + v.length);
  new DataView(out.buffer).setFloat32(0, scale, true);
  const q = new Int8Array(out.buffer, 4);
  for (let i = 0; i < v.length; i++) q[i] = Math.round((v[i] ?? 0) / scale);
  return out;
}

export function unpackVector(blob: Uint8Array): Float32Array {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const scale = view.getFloat32(0, true);
  const n = blob.byteLength - 4;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getInt8(4 + i) * scale;
  return out;
}
