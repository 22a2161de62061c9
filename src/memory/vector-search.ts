/**
 * Vector side of memory search: a Hamming-distance KNN over the binary-quantized vec0
 * column (oversampled), then exact cosine on the full float vectors from the embedding
 * cache. `exactScores` gives the cosine for chunks found by keyword only, so hybrid
 * scores never treat "not in the vector shortlist" as "unrelated".
 */
import type { Database } from "bun:sqlite";
import { dot } from "./embedding/pooling.ts";
import { blobVector, vectorBlob } from "./vector-table.ts";

export interface VectorHit {
  rowid: number;
  score: number;
}

/** Oversample for the binary shortlist: generous, since the scan cost barely depends on k. */
export function shortlistSize(candidates: number): number {
  return Math.max(256, candidates * 16);
}

export function exactScores(
  db: Database,
  model: string,
  query: Float32Array,
  rowids: number[],
): Map<number, number> {
  const out = new Map<number, number>();
  const stmt = db.prepare(
    `SELECT e.embedding FROM memory_chunks c JOIN memory_embedding_cache e ON e.model = ? AND e.hash = c.hash
     WHERE c.rowid = ?`,
  );
  for (const rowid of rowids) {
    const row = stmt.get(model, rowid) as { embedding: Uint8Array } | null;
    if (row) out.set(rowid, dot(query, blobVector(row.embedding)));
  }
  return out;
}

export function vectorSearch(
  db: Database,
  model: string,
  query: Float32Array,
  candidates: number,
): VectorHit[] {
  const rows = db
    .query("SELECT rowid FROM memory_vec WHERE embedding MATCH vec_quantize_binary(?) AND k = ?")
    .all(vectorBlob(query), shortlistSize(candidates)) as { rowid: number }[];
  const scores = exactScores(
    db,
    model,
    query,
    rows.map((r) => r.rowid),
  );
  return [...scores.entries()]
    .map(([rowid, score]) => ({ rowid, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, candidates);
}
