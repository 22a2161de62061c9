/**
 * Recall tracking: every memory search is written down (query, mode, hits, scores) so
 * dreaming can tell which notes keep being needed. Writes are deferred to the next
 * macrotask and never throw into the caller: a turn never waits for, or fails because
 * of, bookkeeping.
 */
import type { Database } from "bun:sqlite";
import type { Logger } from "../system/index.ts";
import type { MemorySearchResponse } from "./hybrid-search.ts";

export function normalizeQuery(query: string): string {
  return query
    .toLowerCase()
    .replace(/[\s\p{P}]+/gu, " ")
    .trim();
}

export class RecallLog {
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  /** Queues the record; returns at once. */
  record(
    query: string,
    response: MemorySearchResponse,
    sessionKey?: string,
    at = Date.now(),
  ): void {
    const results = response.results.map((r) => ({ ...r }));
    this.pending = this.pending.then(
      () =>
        new Promise<void>((resolve) => {
          setTimeout(() => {
            try {
              this.write(query, response.mode, results, sessionKey, at);
            } catch (error) {
              this.logger.warn("memory recall not recorded", { error: String(error) });
            }
            resolve();
          }, 0);
        }),
    );
  }

  private write(
    query: string,
    mode: string,
    results: MemorySearchResponse["results"],
    sessionKey: string | undefined,
    at: number,
  ): void {
    this.db.transaction(() => {
      const info = this.db.run(
        "INSERT INTO memory_recalls(at, query, query_norm, mode, session_key) VALUES (?, ?, ?, ?, ?)",
        [at, query, normalizeQuery(query), mode, sessionKey ?? null],
      );
      const hit = this.db.prepare(
        "INSERT INTO memory_recall_hits(recall_id, chunk_id, path, start_line, end_line, score, snippet) VALUES (?, ?, ?, ?, ?, ?, ?)",
      );
      for (const r of results) {
        hit.run(
          Number(info.lastInsertRowid),
          r.chunkId,
          r.path,
          r.startLine,
          r.endLine,
          r.score,
          r.snippet.slice(0, 300),
        );
      }
    })();
  }

  /** Resolves when every queued record is written (tests, shutdown). */
  flush(): Promise<void> {
    return this.pending;
  }
}
