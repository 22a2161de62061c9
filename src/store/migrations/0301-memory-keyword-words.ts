/**
 * Keyword index v2 (docs/MEMORY.md): FTS5 with the `unicode61` tokenizer over a
 * pre-segmented `terms` column (words for Latin scripts, ICU words plus characters and
 * bigrams for Chinese/Japanese) instead of trigrams over the raw text, ranked by bm25.
 * The segmentation runs in JS, so this migration only reshapes the tables: existing
 * chunks get empty terms, and the memory index fills them on its next sync (no file is
 * re-read and no embedding recomputed; the embedding cache and vectors are untouched).
 */
import type { Migration } from "./migration.ts";

export const memoryKeywordWords: Migration = {
  version: 301,
  name: "memory keyword index: words and bm25",
  sql: `
    DROP TRIGGER IF EXISTS memory_chunks_ai;
    DROP TRIGGER IF EXISTS memory_chunks_ad;
    DROP TRIGGER IF EXISTS memory_chunks_au;
    DROP TABLE IF EXISTS memory_fts;
    ALTER TABLE memory_chunks ADD COLUMN terms TEXT NOT NULL DEFAULT '';
    CREATE VIRTUAL TABLE memory_fts USING fts5(
      terms, content='memory_chunks', content_rowid='rowid',
      tokenize='unicode61 remove_diacritics 2'
    );
    INSERT INTO memory_fts(memory_fts) VALUES ('rebuild');
    CREATE TRIGGER memory_chunks_ai AFTER INSERT ON memory_chunks BEGIN
      INSERT INTO memory_fts(rowid, terms) VALUES (new.rowid, new.terms);
    END;
    CREATE TRIGGER memory_chunks_ad AFTER DELETE ON memory_chunks BEGIN
      INSERT INTO memory_fts(memory_fts, rowid, terms) VALUES ('delete', old.rowid, old.terms);
    END;
    CREATE TRIGGER memory_chunks_au AFTER UPDATE OF terms ON memory_chunks BEGIN
      INSERT INTO memory_fts(memory_fts, rowid, terms) VALUES ('delete', old.rowid, old.terms);
      INSERT INTO memory_fts(rowid, terms) VALUES (new.rowid, new.terms);
    END;
  `,
};
