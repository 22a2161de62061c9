/**
 * Keyword side of memory search over the FTS5 trigram table. Why trigram: it needs no
 * word segmentation, so Chinese (no spaces), English and mixed text are all searchable
 * with one tokenizer shipped inside SQLite (unicode61 would treat a whole Chinese
 * sentence as one token; jieba-style segmenters are not available in SQLite). Its one
 * gap is terms shorter than three characters (e.g. 猫, 天气): those are matched with a
 * LIKE scan instead. Scores are in [0, 1]: sqrt(share of query terms the chunk holds)
 * × (0.5 + 0.5 × bm25 relative to the best hit).
 */
import type { Database } from "bun:sqlite";

const CJK_CHAR = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/u;
const SPLIT = /[\s\p{P}\p{S}]+/u;

export interface QueryTerms {
  /** Terms of ≥ 3 characters, searched through FTS5. */
  long: string[];
  /** Shorter terms (CJK words of 1–2 characters, short latin words), LIKE-matched. */
  short: string[];
}

/** Splits a query into FTS terms: latin words as is, CJK runs as overlapping trigrams. */
export function queryTerms(query: string): QueryTerms {
  const long = new Set<string>();
  const short = new Set<string>();
  for (const word of query.toLowerCase().split(SPLIT)) {
    if (!word) continue;
    const runs =
      word.match(
        /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+|[^\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+/gu,
      ) ?? [];
    for (const run of runs) {
      const chars = [...run];
      if (chars.length < 3) {
        short.add(run);
        continue;
      }
      if (CJK_CHAR.test(run)) {
        for (let i = 0; i + 3 <= chars.length; i++) long.add(chars.slice(i, i + 3).join(""));
      } else long.add(run);
    }
  }
  return { long: [...long], short: [...short] };
}

function ftsQuote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

function likeEscape(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export interface KeywordHit {
  rowid: number;
  score: number;
}

export function keywordSearch(db: Database, query: string, limit: number): KeywordHit[] {
  const terms = queryTerms(query);
  // Short latin words ("a", "to") would match nearly everything: use them only alone.
  const short = terms.short.filter((t) => CJK_CHAR.test(t) || terms.long.length === 0);
  const all = [...terms.long, ...short];
  if (all.length === 0) return [];
  const rank = new Map<number, number>();
  if (terms.long.length > 0) {
    const rows = db
      .query(
        "SELECT rowid, bm25(memory_fts) AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?",
      )
      .all(terms.long.map(ftsQuote).join(" OR "), limit * 4) as { rowid: number; rank: number }[];
    for (const r of rows) rank.set(r.rowid, r.rank);
  }
  const likeOnly = new Set<number>();
  for (const term of short) {
    const rows = db
      .query("SELECT rowid FROM memory_chunks WHERE lower(text) LIKE ? ESCAPE '\\' LIMIT ?")
      .all(`%${likeEscape(term)}%`, limit * 4) as { rowid: number }[];
    for (const r of rows) if (!rank.has(r.rowid)) likeOnly.add(r.rowid);
  }
  const ids = [...rank.keys(), ...likeOnly];
  if (ids.length === 0) return [];
  const best = Math.min(...rank.values(), -1e-9);
  const textOf = db.prepare("SELECT text FROM memory_chunks WHERE rowid = ?");
  const hits: KeywordHit[] = [];
  for (const rowid of ids) {
    const row = textOf.get(rowid) as { text: string } | null;
    if (!row) continue;
    const text = row.text.toLowerCase();
    const matched = all.filter((t) => text.includes(t)).length;
    const r = rank.get(rowid);
    const relative = r === undefined ? 0.5 : Math.min(1, r / best);
    hits.push({ rowid, score: Math.sqrt(matched / all.length) * (0.5 + 0.5 * relative) });
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}
