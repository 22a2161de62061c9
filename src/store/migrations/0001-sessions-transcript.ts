/** Sessions (SPEC §6 metadata) and the transcript entry tree. */
import type { Migration } from "./migration.ts";

export const sessionsAndTranscript: Migration = {
  version: 1,
  name: "sessions and transcript",
  sql: `
    CREATE TABLE sessions (
      session_id        TEXT PRIMARY KEY,
      session_key       TEXT NOT NULL,
      created_at        INTEGER NOT NULL,
      updated_at        INTEGER NOT NULL,
      chat_type         TEXT NOT NULL DEFAULT 'direct',
      delivery_context  TEXT,
      origin            TEXT,
      last_channel      TEXT,
      last_to           TEXT,
      compaction_count  INTEGER NOT NULL DEFAULT 0,
      memory_flush      TEXT,
      skills_snapshot   TEXT,
      model             TEXT,
      aborted_last_run  INTEGER NOT NULL DEFAULT 0,
      leaf_id           TEXT,
      header            TEXT NOT NULL
    );
    CREATE INDEX sessions_by_key ON sessions(session_key, updated_at);

    -- The session a key currently points at (/new moves the pointer, history stays).
    CREATE TABLE session_keys (
      session_key TEXT PRIMARY KEY,
      session_id  TEXT NOT NULL REFERENCES sessions(session_id)
    );

    CREATE TABLE transcript_entries (
      session_id   TEXT NOT NULL REFERENCES sessions(session_id),
      seq          INTEGER NOT NULL,
      id           TEXT NOT NULL,
      parent_id    TEXT,
      type         TEXT NOT NULL,
      timestamp    TEXT NOT NULL,
      role         TEXT,
      body         TEXT NOT NULL,
      usage_input        INTEGER,
      usage_output       INTEGER,
      usage_cache_read   INTEGER,
      usage_cache_write  INTEGER,
      usage_total        INTEGER,
      PRIMARY KEY (session_id, id)
    ) WITHOUT ROWID;
    CREATE UNIQUE INDEX transcript_by_seq ON transcript_entries(session_id, seq);
  `,
};
