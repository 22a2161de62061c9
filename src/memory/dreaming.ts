/**
 * Dreaming: promotes short-term memory (daily notes that keep being recalled) into the
 * curated MEMORY.md. An item is promoted only when all three gates hold — score ≥
 * minScore, recalls ≥ minRecallCount and distinct queries ≥ minUniqueQueries — so a
 * note found again and again by one repeated question is not enough. Score (0..1):
 *   0.35 relevance   mean search score of its hits
 *   0.25 frequency   min(1, recalls / minRecallCount)
 *   0.20 diversity   min(1, distinct queries / minUniqueQueries)
 *   0.20 recency     0.5 ^ (days since last recall / 7)
 * Promoted lines are appended under a heading in MEMORY.md, never duplicating a line
 * already there; every run writes a reviewable entry (candidates, scores, decisions)
 * to DREAMS.md.
 */
import type { Database } from "bun:sqlite";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../system/index.ts";
import { DREAMS_FILE, findMemoryFile } from "./memory-files.ts";

export interface DreamThresholds {
  minScore: number;
  minRecallCount: number;
  minUniqueQueries: number;
}

export type DreamPreset = "core" | "deep" | "rem";

export const DREAM_PRESETS: Record<DreamPreset, DreamThresholds & { cron: string }> = {
  core: { cron: "0 3 * * *", minScore: 0.75, minRecallCount: 3, minUniqueQueries: 2 },
  deep: { cron: "0 */12 * * *", minScore: 0.8, minRecallCount: 3, minUniqueQueries: 3 },
  rem: { cron: "0 */6 * * *", minScore: 0.85, minRecallCount: 4, minUniqueQueries: 3 },
};

export interface DreamCandidate {
  chunkId: string;
  path: string;
  startLine: number;
  endLine: number;
  recalls: number;
  uniqueQueries: number;
  relevance: number;
  frequency: number;
  diversity: number;
  recency: number;
  score: number;
  promoted: boolean;
  /** Why it was not promoted, or what was added. */
  decision: string;
  lines: string[];
}

export interface DreamReport {
  at: number;
  candidates: DreamCandidate[];
  promotedLines: string[];
}

const PROMOTED_HEADING = "## Promoted from daily notes";
const MAX_LINES_PER_ITEM = 5;

function normalizeLine(line: string): string {
  return line
    .replace(/^\s*(?:[-*+]|\d+\.)\s+/, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

function contentLines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^#{1,6}\s/.test(l) && !/^(```|~~~)/.test(l))
    .map((l) => l.replace(/^\s*(?:[-*+]|\d+\.)\s+/, ""))
    .slice(0, MAX_LINES_PER_ITEM);
}

interface Aggregate {
  chunk_id: string;
  path: string;
  start_line: number;
  end_line: number;
  recalls: number;
  unique_queries: number;
  relevance: number;
  last_at: number;
  text: string | null;
}

/** Scores every recalled short-term chunk (daily notes; MEMORY.md is already long-term). */
export function scoreCandidates(db: Database, t: DreamThresholds, now: number): DreamCandidate[] {
  const rows = db
    .query(
      `SELECT h.chunk_id, h.path, h.start_line, h.end_line, count(*) AS recalls,
              count(DISTINCT r.query_norm) AS unique_queries, avg(h.score) AS relevance, max(r.at) AS last_at,
              c.text AS text
       FROM memory_recall_hits h JOIN memory_recalls r ON r.id = h.recall_id
       LEFT JOIN memory_chunks c ON c.id = h.chunk_id
       WHERE h.path LIKE 'memory/%' AND h.chunk_id NOT IN (SELECT chunk_id FROM memory_promotions)
       GROUP BY h.chunk_id ORDER BY recalls DESC`,
    )
    .all() as Aggregate[];
  return rows.map((r) => {
    const frequency = Math.min(1, r.recalls / t.minRecallCount);
    const diversity = Math.min(1, r.unique_queries / t.minUniqueQueries);
    const recency = 0.5 ** (Math.max(0, now - r.last_at) / 86_400_000 / 7);
    const score = 0.35 * r.relevance + 0.25 * frequency + 0.2 * diversity + 0.2 * recency;
    const gates: string[] = [];
    if (score < t.minScore) gates.push(`score ${score.toFixed(2)} < ${t.minScore}`);
    if (r.recalls < t.minRecallCount) gates.push(`recalls ${r.recalls} < ${t.minRecallCount}`);
    if (r.unique_queries < t.minUniqueQueries)
      gates.push(`distinct queries ${r.unique_queries} < ${t.minUniqueQueries}`);
    if (r.text === null) gates.push("chunk no longer in the index");
    return {
      chunkId: r.chunk_id,
      path: r.path,
      startLine: r.start_line,
      endLine: r.end_line,
      recalls: r.recalls,
      uniqueQueries: r.unique_queries,
      relevance: r.relevance,
      frequency,
      diversity,
      recency,
      score,
      promoted: gates.length === 0,
      decision: gates.join("; "),
      lines: r.text === null ? [] : contentLines(r.text),
    };
  });
}

function fmtDate(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 16);
}

/** One dreaming pass: score, promote into MEMORY.md, write the DREAMS.md diary entry. */
export function dream(
  db: Database,
  workspace: string,
  t: DreamThresholds,
  now = Date.now(),
): DreamReport {
  const candidates = scoreCandidates(db, t, now);
  const memoryName = findMemoryFile(workspace) ?? "MEMORY.md";
  const memoryPath = join(workspace, memoryName);
  const existing = existsSync(memoryPath) ? readFileSync(memoryPath, "utf8") : "";
  const present = new Set(existing.split("\n").map(normalizeLine).filter(Boolean));
  const promotedLines: string[] = [];
  // Promotions are recorded and MEMORY.md replaced in one transaction: when the file
  // cannot be written (full card, power cut) the rows roll back and the next pass retries.
  db.transaction(() => {
    for (const c of candidates) {
      if (!c.promoted) continue;
      const fresh = c.lines.filter((l) => {
        const key = normalizeLine(l);
        if (!key || present.has(key)) return false;
        present.add(key);
        return true;
      });
      promotedLines.push(...fresh);
      c.decision = fresh.length > 0 ? `promoted ${fresh.length} line(s)` : "already in MEMORY.md";
      db.run(
        "INSERT OR REPLACE INTO memory_promotions(chunk_id, promoted_at, score, line) VALUES (?, ?, ?, ?)",
        [c.chunkId, now, c.score, fresh.join("\n")],
      );
    }
    if (promotedLines.length > 0) {
      let text = existing;
      if (text !== "" && !text.endsWith("\n")) text += "\n";
      if (!text.includes(PROMOTED_HEADING))
        text += `${text === "" ? "" : "\n"}${PROMOTED_HEADING}\n\n`;
      text += `${promotedLines.map((l) => `- ${l}`).join("\n")}\n`;
      mkdirSync(workspace, { recursive: true });
      writeFileAtomic(memoryPath, text);
    }
  })();
  const diary = [
    `\n## Dream ${fmtDate(now)} UTC`,
    "",
    `Thresholds: score ≥ ${t.minScore}, recalls ≥ ${t.minRecallCount}, distinct queries ≥ ${t.minUniqueQueries}.`,
    candidates.length === 0 ? "No recalled short-term notes to consider." : "",
    ...candidates.map(
      (c) =>
        `- ${c.promoted ? "PROMOTED" : "kept"} ${c.path}#L${c.startLine}-L${c.endLine} score ${c.score.toFixed(2)} ` +
        `(relevance ${c.relevance.toFixed(2)}, recalls ${c.recalls}, queries ${c.uniqueQueries}, recency ${c.recency.toFixed(2)}): ${c.decision}`,
    ),
    "",
  ].join("\n");
  const dreamsPath = join(workspace, DREAMS_FILE);
  mkdirSync(workspace, { recursive: true });
  if (!existsSync(dreamsPath))
    writeFileSync(
      dreamsPath,
      "# Dreams\n\nWhat memory dreaming considered and promoted; review and edit MEMORY.md freely.\n",
    );
  appendFileSync(dreamsPath, diary);
  return { at: now, candidates, promotedLines };
}
