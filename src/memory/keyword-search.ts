/**
 * Keyword side of memory search: FTS5 over pre-segmented terms (search-terms.ts) with
 * the `unicode61` tokenizer, ranked by FTS5's bm25(). Why not trigrams any more: a
 * natural Chinese question rarely shares three consecutive characters with the note it
 * is about (奶奶生日 vs 奶奶的生日), and a trigram match carries no term weighting, so
 * every hit scored the same. The decision and its measurements are in docs/MEMORY.md.
 *
 * bm25 scores every row that matches any query term, which for a word found in most of
 * a 50k-chunk index costs tens of milliseconds. So in a large index (a term in more
 * than 5% of the chunks, and at least 1,000 of them) very common terms only narrow
 * the ranking when nothing rarer is asked: the rarer terms pick and rank the rows.
 * Small indexes, the usual case on a box, always use every term.
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

const COMMON_MIN_DOCS = 1000;
const COMMON_FRACTION = 0.05;

function ftsQuote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

const anyOf = (terms: string[]) => terms.map(ftsQuote).join(" OR ");

/** The FTS5 MATCH expression for `query` in this index, or undefined when nothing can match. */
export function keywordMatchExpression(db: Database, query: string): string | undefined {
  const terms = queryTerms(query);
  if (terms.length === 0) return undefined;
  const df = new Map(
    (
      db
        .query(
          "SELECT term, doc FROM memory_fts_vocab WHERE term IN (SELECT value FROM json_each(?))",
        )
        .all(JSON.stringify(terms)) as { term: string; doc: number }[]
    ).map((r) => [r.term, r.doc]),
  );
  const present = terms.filter((t) => (df.get(t) ?? 0) > 0);
  if (present.length === 0) return undefined;
  const total =
    (db.query("SELECT max(rowid) AS n FROM memory_chunks").get() as { n: number | null }).n ?? 0;
  const common = Math.max(COMMON_MIN_DOCS, total * COMMON_FRACTION);
  const rare = present.filter((t) => (df.get(t) ?? 0) <= common);
  if (rare.length === present.length) return anyOf(present);
  if (rare.length > 0) return anyOf(rare);
  const rarest = [...present].sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0))[0] as string;
  return `${ftsQuote(rarest)} AND (${anyOf(present)})`;
}

export function keywordSearch(db: Database, query: string, limit: number): KeywordHit[] {
  const match = keywordMatchExpression(db, query);
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
