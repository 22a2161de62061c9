/**
 * The sqlite-vec side of the index. vec0 holds binary-quantized embeddings
 * (`bit[dim]`, 1 bit per dimension): a Hamming scan over 50k chunks takes a few
 * milliseconds where a float scan takes ~30 ms on a small CPU. The full float vectors
 * live in the embedding cache, and every candidate is re-ranked by exact cosine, so
 * results for small indexes (≤ the oversample) are exact and large ones lose little.
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
    setMeta(db, "embedding_model", model.name);
    setMeta(db, "embedding_dimension", String(model.dimension));
  })();
  return reason ?? (current ? undefined : "first index with an embedding model");
}

export function vectorBlob(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

export function blobVector(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}
