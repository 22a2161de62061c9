/**
 * Keyword side of memory search: FTS5 over pre-segmented terms (search-terms.ts) with
 * the `unicode61` tokenizer, ranked by FTS5's bm25(). Why not trigrams any more: a
 * natural Chinese question rarely shares three consecutive characters with the note it
 * is about (奶奶生日 vs 奶奶的生日), and a trigram match carries no term weighting, so
 * every hit scored the same. The decision and its measurements are in docs/MEMORY.md.
 *
 * bm25 scores every row that matches any query term: for a word found in tens of
 * thousands of chunks that costs tens of milliseconds. So every term is first looked
 * up on its own, capped at 1,000 rows, which gives its document frequency when it is
 * rare (the usual case on a box). Rare terms are ranked by bm25; very common terms
 * (more than 1,000 chunks) are left out of the bm25 query when a rarer term is there,
 * and when a query has only very common terms, the capped lists are ranked by
 * idf-weighted coverage instead (checked against each chunk's terms).
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

/** Rows read per term; a term with more is very common. */
const TERM_CAP = 1000;

function ftsQuote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

export function keywordSearch(db: Database, query: string, limit: number): KeywordHit[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const lookup = db.query("SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?");
  const lists = terms
    .map((term) => ({
      term,
      rows: (lookup.all(ftsQuote(term), TERM_CAP + 1) as { rowid: number }[]).map((r) => r.rowid),
    }))
    .filter((list) => list.rows.length > 0);
  if (lists.length === 0) return [];
  const rare = lists.filter((list) => list.rows.length <= TERM_CAP).map((list) => list.term);
  if (rare.length > 0) return bm25Search(db, rare, limit);
  return coverageSearch(db, lists, limit);
}

/** bm25 over the rows matching any of `terms`, normalised to the best hit. */
function bm25Search(db: Database, terms: string[], limit: number): KeywordHit[] {
  const rows = db
    .query(
      "SELECT rowid, bm25(memory_fts) AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?",
    )
    .all(terms.map(ftsQuote).join(" OR "), limit) as { rowid: number; rank: number }[];
  const best = rows[0]?.rank;
  if (best === undefined || best >= 0) return rows.map((r) => ({ rowid: r.rowid, score: 1 }));
  return rows.map((r) => ({ rowid: r.rowid, score: Math.max(0, r.rank / best) }));
}

/**
 * Only very common terms: their capped row lists are merged and ranked by the share of
 * the query's terms a chunk holds (checked against the chunk's own terms, because a
 * capped list can miss a chunk that has the term).
 */
function coverageSearch(
  db: Database,
  lists: { term: string; rows: number[] }[],
  limit: number,
): KeywordHit[] {
  const count = new Map<number, number>();
  for (const list of lists) {
    for (const rowid of list.rows) count.set(rowid, (count.get(rowid) ?? 0) + 1);
  }
  const shortlist = [...count.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit * 2);
  const rows = db
    .query(
      "SELECT c.rowid AS rowid, c.terms AS terms FROM json_each(?) j CROSS JOIN memory_chunks c ON c.rowid = j.value",
    )
    .all(JSON.stringify(shortlist.map(([rowid]) => rowid))) as { rowid: number; terms: string }[];
  const hits = rows.map((row) => {
    const terms = ` ${row.terms} `;
    const held = lists.filter((list) => terms.includes(` ${list.term} `)).length;
    return { rowid: row.rowid, score: held / lists.length };
  });
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}
