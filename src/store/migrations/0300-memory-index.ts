/**
 * Memory index (SPEC §8): indexed files with their hashes, chunks with line ranges, an
 * FTS5 trigram table over chunk text (kept in sync by triggers), the embedding cache
 * keyed by (model, content hash), per-chunk packed vectors for re-ranking, recall tracking and dreaming promotions. The vec0
 * table depends on the embedding dimension, so the memory area creates it at runtime.
 */
import type { Migration } from "./migration.ts";

export const memoryIndex: Migration = {
  version: 300,
  name: "memory index",
  sql: `
    CREATE TABLE memory_meta (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );
    CREATE TABLE memory_files (
      path       TEXT PRIMARY KEY,
      source     TEXT NOT NULL DEFAULT 'memory',
      hash       TEXT NOT NULL,
      mtime      INTEGER NOT NULL,
      size       INTEGER NOT NULL,
      indexed_at INTEGER NOT NULL
    );
    CREATE TABLE memory_chunks (
      rowid      INTEGER PRIMARY KEY,
      id         TEXT NOT NULL UNIQUE,
      path       TEXT NOT NULL REFERENCES memory_files(path) ON DELETE CASCADE,
      start_line INTEGER NOT NULL,
      end_line   INTEGER NOT NULL,
      hash       TEXT NOT NULL,
      text       TEXT NOT NULL,
      tokens     INTEGER NOT NULL,
      note_date  TEXT,
      embedded   INTEGER NOT NULL DEFAULT 0,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX memory_chunks_path ON memory_chunks(path);
    CREATE INDEX memory_chunks_hash ON memory_chunks(hash);
    CREATE VIRTUAL TABLE memory_fts USING fts5(
      text, content='memory_chunks', content_rowid='rowid', tokenize='trigram'
    );
    CREATE TRIGGER memory_chunks_ai AFTER INSERT ON memory_chunks BEGIN
      INSERT INTO memory_fts(rowid, text) VALUES (new.rowid, new.text);
    END;
    CREATE TRIGGER memory_chunks_ad AFTER DELETE ON memory_chunks BEGIN
      INSERT INTO memory_fts(memory_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    END;
    CREATE TRIGGER memory_chunks_au AFTER UPDATE OF text ON memory_chunks BEGIN
      INSERT INTO memory_fts(memory_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
      INSERT INTO memory_fts(rowid, text) VALUES (new.rowid, new.text);
    END;
    CREATE TABLE memory_embedding_cache (
      id         INTEGER PRIMARY KEY,
      model      TEXT NOT NULL,
      hash       TEXT NOT NULL,
      embedding  BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (model, hash)
    );
    -- The packed vector of each chunk, narrow rows keyed by chunk rowid: re-ranking a
    -- vec0 shortlist is one B-tree lookup per candidate.
    CREATE TABLE memory_chunk_vectors (
      rowid     INTEGER PRIMARY KEY REFERENCES memory_chunks(rowid) ON DELETE CASCADE,
      embedding BLOB NOT NULL
    );
    CREATE TABLE memory_recalls (
      id          INTEGER PRIMARY KEY,
      at          INTEGER NOT NULL,
      query       TEXT NOT NULL,
      query_norm  TEXT NOT NULL,
      mode        TEXT NOT NULL,
      session_key TEXT
    );
    CREATE TABLE memory_recall_hits (
      recall_id  INTEGER NOT NULL REFERENCES memory_recalls(id) ON DELETE CASCADE,
      chunk_id   TEXT NOT NULL,
      path       TEXT NOT NULL,
      start_line INTEGER NOT NULL,
      end_line   INTEGER NOT NULL,
      score      REAL NOT NULL,
      snippet    TEXT NOT NULL
    );
    CREATE INDEX memory_recall_hits_chunk ON memory_recall_hits(chunk_id);
    CREATE TABLE memory_promotions (
      chunk_id    TEXT PRIMARY KEY,
      promoted_at INTEGER NOT NULL,
      score       REAL NOT NULL,
      line        TEXT NOT NULL
    );
  `,
};
