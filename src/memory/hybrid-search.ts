/**
 * memory_search ranking (SPEC §8): vector 0.7 + keyword 0.3 over a candidate pool of
 * maxResults × 4 from each side, then optional temporal decay and MMR, a minimum score
 * of 0.35 and at most 6 results. Without an embedding model the keyword score alone
 * ranks (weights renormalized) and the response says `mode: "keyword"` with the reason.
 */
import type { Database } from "bun:sqlite";
import type { MemoryConfig } from "../config/index.ts";
import type { Embedder } from "./embedding/embedder.ts";
import { keywordSearch } from "./keyword-search.ts";
import { decayFactor, mmrSelect } from "./rerank.ts";
import { SESSION_PATH_PREFIX } from "./session-transcripts.ts";
import { exactScores, vectorSearch } from "./vector-search.ts";
import { unpackVector } from "./vector-table.ts";

export type SearchSettings = MemoryConfig["search"];

export interface MemorySearchResult {
  chunkId: string;
  /** "memory": MEMORY.md and memory/*.md; "session": a session transcript (opt-in). */
  source: "memory" | "session";
  /** For session hits: the session and the transcript entries the chunk covers. */
  sessionKey?: string;
  entryIds?: string[];
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  vectorScore: number | undefined;
  textScore: number;
  snippet: string;
}

export interface MemorySearchResponse {
  mode: "hybrid" | "keyword";
  /** Why the search is keyword-only, when it is. */
  reason?: string;
  results: MemorySearchResult[];
  /** Time spent embedding the query (excluded from ranking time). */
  embedMs: number;
  searchMs: number;
}

export interface SearchOptions {
  maxResults?: number;
  minScore?: number;
  /**
   * Which indexed paths the asker may see (transcript search shows a sender only their
   * own sessions); default all. Applied before ranking, so hidden chunks take no slot.
   */
  visiblePath?: (path: string) => boolean;
  /** Precomputed query vector (benchmarks; skips the model call). */
  queryVector?: Float32Array;
  now?: number;
}

interface ChunkRow {
  rowid: number;
  id: string;
  path: string;
  start_line: number;
  end_line: number;
  text: string;
  hash: string;
  note_date: string | null;
}

const SNIPPET_CHARS = 700;

function snippetOf(text: string): string {
  const t = text.trim();
  return t.length <= SNIPPET_CHARS ? t : `${t.slice(0, SNIPPET_CHARS)}…`;
}

export interface HybridSearchDeps {
  db: Database;
  settings: SearchSettings;
  embedder: Embedder | undefined;
  /** Set when vectors cannot be used even with a model (e.g. sqlite-vec missing). */
  vectorsUnavailable: string | undefined;
}

export async function hybridSearch(
  deps: HybridSearchDeps,
  query: string,
  options: SearchOptions = {},
): Promise<MemorySearchResponse> {
  const { db, settings, embedder } = deps;
  const maxResults = options.maxResults ?? settings.maxResults;
  const minScore = options.minScore ?? settings.minScore;
  const candidates = maxResults * settings.candidateMultiplier;
  const useVectors = embedder !== undefined && deps.vectorsUnavailable === undefined;

  let embedMs = 0;
  let queryVector = options.queryVector;
  if (useVectors && !queryVector) {
    const t = performance.now();
    [queryVector] = await embedder.embed([query]);
    embedMs = performance.now() - t;
  }
  const started = performance.now();
  const text = new Map(keywordSearch(db, query, candidates).map((h) => [h.rowid, h.score]));
  const vector = new Map<number, number>();
  if (useVectors && queryVector) {
    for (const h of vectorSearch(db, queryVector, candidates)) vector.set(h.rowid, h.score);
    const missing = [...text.keys()].filter((id) => !vector.has(id));
    for (const [id, s] of exactScores(db, queryVector, missing)) vector.set(id, s);
  }
  const ids = [...new Set([...text.keys(), ...vector.keys()])];
  const rows = db
    .query(
      `SELECT c.rowid, c.id, c.path, c.start_line, c.end_line, c.text, c.hash, c.note_date
       FROM json_each(?) j CROSS JOIN memory_chunks c ON c.rowid = j.value`,
    )
    .all(JSON.stringify(ids)) as ChunkRow[];
  const visible = options.visiblePath;
  const shown = visible ? rows.filter((row) => visible(row.path)) : rows;
  const vecOf = db.query("SELECT embedding FROM memory_chunk_vectors WHERE rowid = ?");
  const now = options.now ?? Date.now();
  const vw = useVectors ? settings.vectorWeight : 0;
  const tw = settings.textWeight;
  const norm = vw + tw > 0 ? vw + tw : 1;
  const scored = shown.map((row) => {
    const v = vector.get(row.rowid);
    const t = text.get(row.rowid) ?? 0;
    let score = (vw * Math.max(0, v ?? 0) + tw * t) / norm;
    if (settings.temporalDecay.enabled)
      score *= decayFactor(row.note_date, settings.temporalDecay.halfLifeDays, now);
    const cached =
      settings.mmr.enabled && useVectors
        ? (vecOf.get(row.rowid) as { embedding: Uint8Array } | null)
        : null;
    return {
      row,
      score,
      v,
      t,
      noteDate: row.note_date,
      text: row.text,
      vector: cached ? unpackVector(cached.embedding) : undefined,
    };
  });
  const kept = scored.filter((s) => s.score >= minScore);
  const ranked = settings.mmr.enabled
    ? mmrSelect(kept, maxResults, settings.mmr.lambda)
    : kept.sort((a, b) => b.score - a.score).slice(0, maxResults);
  const results = ranked.map((s) => ({
    chunkId: s.row.id,
    source: s.row.path.startsWith(SESSION_PATH_PREFIX) ? ("session" as const) : ("memory" as const),
    path: s.row.path,
    startLine: s.row.start_line,
    endLine: s.row.end_line,
    score: Math.round(s.score * 1000) / 1000,
    vectorScore: s.v === undefined ? undefined : Math.round(s.v * 1000) / 1000,
    textScore: Math.round(s.t * 1000) / 1000,
    snippet: snippetOf(s.row.text),
  }));
  const response: MemorySearchResponse = {
    mode: useVectors ? "hybrid" : "keyword",
    results,
    embedMs,
    searchMs: performance.now() - started,
  };
  if (!useVectors) response.reason = deps.vectorsUnavailable ?? "no embedding model is installed";
  return response;
}
