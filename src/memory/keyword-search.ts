/**
 * Keyword side of memory search over the FTS5 trigram table. Why trigram: it needs no
 * word segmentation, so Chinese (no spaces), English and mixed text are all searchable
 * with one tokenizer shipped inside SQLite (unicode61 would treat a whole Chinese
 * sentence as one token; jieba-style segmenters are not available in SQLite). Its one
 * gap is terms shorter than three characters (e.g. 猫, 天气): a query made only of such
 * terms is answered with a LIKE scan (slower, bounded by LIMIT); next to longer terms
 * they only count towards coverage.
 *
 * Ranking is idf-weighted term coverage, not FTS5 bm25: bm25 must score every row that
 * matches any term, which for a common word is most of a 50k-chunk index. Instead each
 * term is looked up on its own with a cap; a term that hits the cap is common and gets
 * a low idf. Score = Σ idf of terms the chunk contains / Σ idf of terms that occur
 * anywhere, in [0, 1].
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

/** Rows fetched per term; a term matching more is treated as common. */
const TERM_CAP = 400;

interface TermMatches {
  term: string;
  rows: Set<number>;
  idf: number;
}

export function keywordSearch(db: Database, query: string, limit: number): KeywordHit[] {
  const terms = queryTerms(query);
  // Short latin words ("a", "to") would match nearly everything: they count only alone.
  const short = terms.short.filter((t) => CJK_CHAR.test(t) || terms.long.length === 0);
  if (terms.long.length + short.length === 0) return [];
  const total = Math.max(
    1,
    (db.query("SELECT max(rowid) AS n FROM memory_chunks").get() as { n: number | null }).n ?? 1,
  );
  const fts = db.query("SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? LIMIT ?");
  const like = db.query(
    "SELECT rowid FROM memory_chunks WHERE lower(text) LIKE ? ESCAPE '\\' LIMIT ?",
  );
  const matches: TermMatches[] = [];
  const lookup = (term: string, rows: { rowid: number }[]) => {
    if (rows.length === 0) return;
    const df = rows.length > TERM_CAP ? Math.max(TERM_CAP, total / 2) : rows.length;
    const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
    matches.push({ term, rows: new Set(rows.map((r) => r.rowid)), idf: Math.max(idf, 0.01) });
  };
  for (const term of terms.long)
    lookup(term, fts.all(ftsQuote(term), TERM_CAP + 1) as { rowid: number }[]);
  // Short terms need a LIKE scan; next to longer terms they only count towards coverage.
  const coverageOnly: string[] = [];
  for (const term of short) {
    if (terms.long.length === 0)
      lookup(term, like.all(`%${likeEscape(term)}%`, TERM_CAP + 1) as { rowid: number }[]);
    else coverageOnly.push(term);
  }
  if (matches.length === 0) return [];
  const weight = matches.reduce((sum, m) => sum + m.idf, 0);
  const prelim = new Map<number, number>();
  for (const m of matches)
    for (const rowid of m.rows) prelim.set(rowid, (prelim.get(rowid) ?? 0) + m.idf);
  const shortlist = [...prelim.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit * 2);
  // Capped lists may miss a common term in a chunk: verify against the text.
  const rows = db
    .query(
      "SELECT c.rowid AS rowid, c.text AS text FROM json_each(?) j CROSS JOIN memory_chunks c ON c.rowid = j.value",
    )
    .all(JSON.stringify(shortlist.map(([rowid]) => rowid))) as { rowid: number; text: string }[];
  const hits: KeywordHit[] = [];
  for (const row of rows) {
    const text = row.text.toLowerCase();
    let have = 0;
    for (const m of matches) if (m.rows.has(row.rowid) || text.includes(m.term)) have += m.idf;
    let score = have / weight;
    if (coverageOnly.length > 0) {
      const present = coverageOnly.filter((t) => text.includes(t)).length;
      score *= 0.8 + (0.2 * present) / coverageOnly.length;
    }
    hits.push({ rowid: row.rowid, score });
  }
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}
