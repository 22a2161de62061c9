/**
 * Vector side of memory search: a Hamming-distance KNN over the binary-quantized vec0
 * column (oversampled), then cosine on each candidate's packed int8 vector (one narrow
 * row per chunk), in one statement. `exactScores` also scores chunks found by keyword only, so hybrid ranking
 * never treats "not in the vector shortlist" as "unrelated".
 */
import type { Database } from "bun:sqlite";
import { vectorBlob } from "./vector-table.ts";

export interface VectorHit {
  rowid: number;
  score: number;
}

/**
 * Size of the binary shortlist. vec0's KNN cost grows with k (at 50k chunks k = 24 costs
 * ~4 ms of CPU, k = 288 ~28 ms), so the oversample is modest: 4 × the candidate pool
 * (96 by default), never below 64. The benchmark reports the recall this gives.
 */
export function shortlistSize(candidates: number): number {
  return Math.max(64, candidates * 4);
}

/** Dot product of a float query with a packed (scale + int8) cache vector. */
function packedDot(query: Float32Array, blob: Uint8Array): number {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const scale = view.getFloat32(0, true);
  const q = new Int8Array(blob.buffer, blob.byteOffset + 4, blob.byteLength - 4);
  let s = 0;
  const n = Math.min(q.length, query.length);
  for (let i = 0; i < n; i++) s += (q[i] ?? 0) * (query[i] ?? 0);
  return s * scale;
}

/** Cosine (dot of unit vectors) of `query` with each chunk's stored vector. */
export function exactScores(
  db: Database,
  query: Float32Array,
  rowids: number[],
): Map<number, number> {
  const out = new Map<number, number>();
  if (rowids.length === 0) return out;
  const rows = db
    .query(
      `SELECT v.rowid AS rowid, v.embedding AS embedding FROM json_each(?) j
       CROSS JOIN memory_chunk_vectors v ON v.rowid = j.value`,
    )
    .all(JSON.stringify(rowids)) as { rowid: number; embedding: Uint8Array }[];
  for (const row of rows) out.set(row.rowid, packedDot(query, row.embedding));
  return out;
}

export function vectorSearch(db: Database, query: Float32Array, candidates: number): VectorHit[] {
  const rows = db
    .query("SELECT rowid FROM memory_vec WHERE embedding MATCH vec_quantize_binary(?) AND k = ?")
    .all(vectorBlob(query), shortlistSize(candidates)) as { rowid: number }[];
  const scores = exactScores(
    db,
    query,
    rows.map((r) => r.rowid),
  );
  return [...scores.entries()]
    .map(([rowid, score]) => ({ rowid, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, candidates);
}
