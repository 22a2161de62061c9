/**
 * Keyword side of memory search: FTS5 over pre-segmented terms (search-terms.ts) with
 * the `unicode61` tokenizer, ranked by FTS5's bm25(). Why not trigrams any more: a
 * natural Chinese question rarely shares three consecutive characters with the note it
 * is about (奶奶生日 vs 奶奶的生日), and a trigram match carries no term weighting, so
 * every hit scored the same. The decision and its measurements are in docs/MEMORY.md.
 *
 * Scores are normalised per query into 0..1 (the best hit's bm25 is 1, the others
 * relative to it), which is what the hybrid merge weighs against vector similarity.
 */
import type { Database } from "bun:sqlite";
import { queryTerms } from "./search-terms.ts";

export interface KeywordHit {
  rowid: number;
  score: number;
}

function ftsQuote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** The FTS5 MATCH expression for `query`, or undefined when it has no searchable term. */
export function keywordMatchExpression(query: string): string | undefined {
  const terms = queryTerms(query);
  return terms.length > 0 ? terms.map(ftsQuote).join(" OR ") : undefined;
}

export function keywordSearch(db: Database, query: string, limit: number): KeywordHit[] {
  const match = keywordMatchExpression(query);
  if (!match) return [];
  const rows = db
    .query(
      "SELECT rowid, bm25(memory_fts) AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?",
    )
    .all(match, limit) as { rowid: number; rank: number }[];
  const best = rows[0]?.rank;
  if (best === undefined || best >= 0) return rows.map((r) => ({ rowid: r.rowid, score: 1 }));
  return rows.map((r) => ({ rowid: r.rowid, score: Math.max(0, r.rank / best) }));
}
