/**
 * Keeps the memory index in the main DB in step with the memory files. Incremental:
 * a file whose mtime and size are unchanged is skipped; a changed file is re-chunked
 * and only chunks whose id is new are inserted; embeddings come from the cache by
 * content hash before the model is asked. A different embedding model (name or
 * dimension) triggers a full rebuild. Without a model (or without sqlite-vec) the
 * index is keyword-only and says so.
 */
import type { Database } from "bun:sqlite";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import type { Logger } from "../system/index.ts";
import { type Chunk, type ChunkOptions, chunkMarkdown, sha256Hex } from "./chunk-markdown.ts";
import type { Embedder } from "./embedding/embedder.ts";
import { listMemoryFiles, noteDate } from "./memory-files.ts";
import { indexTerms } from "./search-terms.ts";
import { type SessionSnapshot, sessionIndexPath } from "./session-transcripts.ts";
import { ensureVectorTable, packVector, unpackVector, vectorBlob } from "./vector-table.ts";

export interface IndexStats {
  files: number;
  changedFiles: number;
  removedFiles: number;
  chunksAdded: number;
  chunksRemoved: number;
  /** Chunks whose vector had to be computed by the model (cache misses). */
  embedded: number;
  cacheHits: number;
  /** Set when the whole index was rebuilt (model change). */
  rebuilt?: string;
  /** Chunks whose keyword terms were computed for an index from before keyword v2. */
  termsFilled?: number;
  ms: number;
}

export interface MemoryIndexOptions {
  db: Database;
  workspace: string;
  chunk: ChunkOptions;
  /** Undefined: keyword-only. */
  embedder: Embedder | undefined;
  /** False when sqlite-vec is not loaded: vectors are not stored. */
  vectors: boolean;
  logger: Logger;
}

interface PendingChunk {
  rowid: number;
  hash: string;
  text: string;
}

/** Chunks embedded per model call and committed together (progress survives a crash). */
const EMBED_SLICE = 256;

interface FileRow {
  path: string;
  hash: string;
  mtime: number;
  size: number;
}

function emptyStats(files: number): IndexStats {
  return {
    files,
    changedFiles: 0,
    removedFiles: 0,
    chunksAdded: 0,
    chunksRemoved: 0,
    embedded: 0,
    cacheHits: 0,
    ms: 0,
  };
}

export class MemoryIndex {
  constructor(private readonly o: MemoryIndexOptions) {}

  get vectorsEnabled(): boolean {
    return this.o.vectors && this.o.embedder !== undefined;
  }

  /** Re-indexes what changed; `force` re-reads every file even when mtime/size match. */
  async sync(
    options: { force?: boolean; paths?: string[]; embed?: boolean } = {},
  ): Promise<IndexStats> {
    const started = performance.now();
    const { db } = this.o;
    const stats = emptyStats(0);
    const embedder = this.o.embedder;
    if (embedder && this.o.vectors) {
      const hadModel =
        db.query("SELECT 1 FROM memory_meta WHERE key = 'embedding_model'").get() !== null;
      const reason = ensureVectorTable(db, { name: embedder.name, dimension: embedder.dimension });
      if (reason && hadModel) {
        db.run("DELETE FROM memory_files");
        stats.rebuilt = reason;
        this.o.logger.info("memory index rebuilt", { reason });
      }
    }
    stats.termsFilled = fillMissingTerms(db);
    const onDisk = listMemoryFiles(this.o.workspace);
    stats.files = onDisk.length;
    const known = new Map(
      (
        db
          .query("SELECT path, hash, mtime, size FROM memory_files WHERE source = 'memory'")
          .all() as FileRow[]
      ).map((r) => [r.path, r]),
    );
    for (const path of known.keys()) {
      if (!onDisk.includes(path)) {
        const removed = db
          .query("SELECT count(*) AS n FROM memory_chunks WHERE path = ?")
          .get(path) as { n: number };
        this.deleteVectorsOf(path);
        db.run("DELETE FROM memory_files WHERE path = ?", [path]);
        stats.removedFiles++;
        stats.chunksRemoved += removed.n;
      }
    }
    const only = options.paths ? new Set(options.paths) : undefined;
    for (const path of onDisk) {
      if (only && !only.has(path)) continue;
      await this.syncFile(path, known.get(path), options.force ?? false, stats);
    }
    // `embed: false` indexes text only; chunks stay pending until the next sync.
    if (this.vectorsEnabled && options.embed !== false) await this.embedPending(stats);
    stats.ms = performance.now() - started;
    return stats;
  }

  private deleteVectorsOf(path: string): void {
    if (!this.vectorsEnabled) return;
    const rows = this.o.db.query("SELECT rowid FROM memory_chunks WHERE path = ?").all(path) as {
      rowid: number;
    }[];
    const drop = this.o.db.prepare("DELETE FROM memory_vec WHERE rowid = ?");
    for (const r of rows) drop.run(r.rowid);
  }

  private async syncFile(
    path: string,
    row: FileRow | undefined,
    force: boolean,
    stats: IndexStats,
  ): Promise<void> {
    const { db } = this.o;
    const abs = join(this.o.workspace, path);
    let st: ReturnType<typeof statSync>;
    let content: string;
    try {
      st = statSync(abs);
      if (row && !force && row.mtime === Math.floor(st.mtimeMs) && row.size === st.size) return;
      content = readFileSync(abs, "utf8");
    } catch (error) {
      this.o.logger.warn("memory file unreadable, skipped", { path, error: String(error) });
      return;
    }
    const hash = sha256Hex(content);
    if (row && row.hash === hash) {
      db.run("UPDATE memory_files SET mtime = ?, size = ? WHERE path = ?", [
        Math.floor(st.mtimeMs),
        st.size,
        path,
      ]);
      return;
    }
    stats.changedFiles++;
    this.writeChunks(
      { path, source: "memory", hash, mtime: Math.floor(st.mtimeMs), size: st.size },
      chunkMarkdown(path, content, this.o.chunk),
      stats,
    );
  }

  /**
   * Indexes session transcripts (`memory.sessions.enabled`): a session whose version is
   * unchanged is skipped without reading its transcript; a changed one is re-rendered
   * and only its new chunks are inserted; sessions that are gone leave the index.
   */
  async syncSessions(
    sessions: SessionSnapshot[],
    render: (sessionId: string) => string,
  ): Promise<IndexStats> {
    const started = performance.now();
    const { db } = this.o;
    const stats = emptyStats(sessions.length);
    const known = new Map(
      (
        db.query("SELECT path, hash FROM memory_files WHERE source = 'session'").all() as {
          path: string;
          hash: string;
        }[]
      ).map((r) => [r.path, r.hash]),
    );
    const live = new Set<string>();
    for (const session of sessions) {
      const path = sessionIndexPath(session.sessionKey, session.sessionId);
      live.add(path);
      if (known.get(path) === session.version) continue;
      const text = render(session.sessionId);
      stats.changedFiles++;
      this.writeChunks(
        { path, source: "session", hash: session.version, mtime: 0, size: text.length },
        text ? chunkMarkdown(path, text, this.o.chunk) : [],
        stats,
      );
    }
    for (const path of known.keys()) {
      if (live.has(path)) continue;
      this.deleteVectorsOf(path);
      db.run("DELETE FROM memory_files WHERE path = ?", [path]);
      stats.removedFiles++;
    }
    if (this.vectorsEnabled) await this.embedPending(stats);
    stats.ms = performance.now() - started;
    return stats;
  }

  /** Replaces the chunks of one indexed source: removed ones go, new ones come, moved ones move. */
  private writeChunks(
    file: { path: string; source: "memory" | "session"; hash: string; mtime: number; size: number },
    chunks: Chunk[],
    stats: IndexStats,
  ): void {
    const { db } = this.o;
    const { path } = file;
    const now = Date.now();
    const existing = new Set(
      (db.query("SELECT id FROM memory_chunks WHERE path = ?").all(path) as { id: string }[]).map(
        (r) => r.id,
      ),
    );
    const wanted = new Set(chunks.map((c) => c.id));
    const date = noteDate(path) ?? null;
    db.transaction(() => {
      db.run(
        `INSERT INTO memory_files(path, source, hash, mtime, size, indexed_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, mtime = excluded.mtime, size = excluded.size,
         indexed_at = excluded.indexed_at`,
        [path, file.source, file.hash, file.mtime, file.size, now],
      );
      for (const id of existing) {
        if (wanted.has(id)) continue;
        const rowid = db.query("SELECT rowid FROM memory_chunks WHERE id = ?").get(id) as {
          rowid: number;
        } | null;
        if (rowid && this.vectorsEnabled)
          db.run("DELETE FROM memory_vec WHERE rowid = ?", [rowid.rowid]);
        db.run("DELETE FROM memory_chunks WHERE id = ?", [id]);
        stats.chunksRemoved++;
      }
      const insert = db.prepare(
        `INSERT INTO memory_chunks(id, path, start_line, end_line, hash, text, terms, tokens, note_date, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const move = db.prepare("UPDATE memory_chunks SET start_line = ?, end_line = ? WHERE id = ?");
      for (const c of chunks) {
        if (existing.has(c.id)) {
          move.run(c.startLine, c.endLine, c.id);
          continue;
        }
        insert.run(
          c.id,
          path,
          c.startLine,
          c.endLine,
          c.hash,
          c.text,
          indexTerms(c.text),
          c.tokens,
          date,
          now,
        );
        stats.chunksAdded++;
      }
    })();
  }

  private async embedPending(stats: IndexStats): Promise<void> {
    const { db } = this.o;
    const pending = db
      .query("SELECT rowid, hash, text FROM memory_chunks WHERE embedded = 0")
      .all() as PendingChunk[];
    for (let i = 0; i < pending.length; i += EMBED_SLICE) {
      await this.embedSlice(pending.slice(i, i + EMBED_SLICE), stats);
    }
  }

  private async embedSlice(pending: PendingChunk[], stats: IndexStats): Promise<void> {
    const { db } = this.o;
    const embedder = this.o.embedder;
    if (!embedder) return;
    const cached = db.prepare(
      "SELECT embedding FROM memory_embedding_cache WHERE model = ? AND hash = ?",
    );
    const vectors = new Map<string, Float32Array>();
    const missing = new Map<string, string>();
    for (const p of pending) {
      if (vectors.has(p.hash) || missing.has(p.hash)) continue;
      const hit = cached.get(embedder.name, p.hash) as { embedding: Uint8Array } | null;
      if (hit) {
        vectors.set(p.hash, unpackVector(hit.embedding));
        stats.cacheHits++;
      } else missing.set(p.hash, p.text);
    }
    if (missing.size > 0) {
      const hashes = [...missing.keys()];
      let computed: Float32Array[];
      try {
        computed = await embedder.embed([...missing.values()]);
      } catch (error) {
        throw new ClawboxError(
          "MEMORY_INDEX_FAILED",
          `embedding ${missing.size} memory chunks failed`,
          {
            hint: "check the embedding model (clawbox memory status); keyword search still works",
            cause: error,
          },
        );
      }
      const now = Date.now();
      const put = db.prepare(
        "INSERT OR REPLACE INTO memory_embedding_cache(model, hash, embedding, created_at) VALUES (?, ?, ?, ?)",
      );
      db.transaction(() => {
        hashes.forEach((hash, i) => {
          const v = computed[i];
          if (!v) return;
          vectors.set(hash, v);
          put.run(embedder.name, hash, packVector(v), now);
        });
      })();
      stats.embedded += missing.size;
    }
    const dropVec = db.prepare("DELETE FROM memory_vec WHERE rowid = ?");
    const insertVec = db.prepare(
      "INSERT INTO memory_vec(rowid, embedding) VALUES (?, vec_quantize_binary(?))",
    );
    const mark = db.prepare("UPDATE memory_chunks SET embedded = 1 WHERE rowid = ?");
    const keep = db.prepare(
      "INSERT OR REPLACE INTO memory_chunk_vectors(rowid, embedding) VALUES (?, ?)",
    );
    db.transaction(() => {
      for (const p of pending) {
        const v = vectors.get(p.hash);
        if (!v) continue;
        dropVec.run(p.rowid);
        insertVec.run(p.rowid, vectorBlob(v));
        keep.run(p.rowid, packVector(v));
        mark.run(p.rowid);
      }
    })();
  }

  /** Chunks of one file in line order (for tests and `memory status`). */
  chunksOf(path: string): Chunk[] {
    return (
      this.o.db
        .query(
          "SELECT id, start_line, end_line, text, hash, tokens FROM memory_chunks WHERE path = ? ORDER BY start_line",
        )
        .all(path) as {
        id: string;
        start_line: number;
        end_line: number;
        text: string;
        hash: string;
        tokens: number;
      }[]
    ).map((r) => ({
      id: r.id,
      startLine: r.start_line,
      endLine: r.end_line,
      text: r.text,
      hash: r.hash,
      tokens: r.tokens,
    }));
  }
}

/**
 * Chunks indexed before the word-level keyword index (migration 301) have no terms yet:
 * they are segmented here from their stored text, without re-reading files or touching
 * embeddings. Returns how many were filled.
 */
export function fillMissingTerms(db: Database): number {
  const rows = db
    .query("SELECT rowid, text FROM memory_chunks WHERE terms = '' AND text != ''")
    .all() as { rowid: number; text: string }[];
  if (rows.length === 0) return 0;
  const update = db.prepare("UPDATE memory_chunks SET terms = ? WHERE rowid = ?");
  db.transaction(() => {
    for (const row of rows) update.run(indexTerms(row.text), row.rowid);
  })();
  return rows.length;
}
