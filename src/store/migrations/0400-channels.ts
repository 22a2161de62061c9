/**
 * Channel inbox, outbox and live state (SPEC §9, issue 11). The inbox is keyed by
 * (channel, platform message id) so a platform retry or replay is recognized across
 * restarts; the outbox holds every reply before it is sent, keyed by (channel, reply_to,
 * seq) so a part is never stored or sent twice; channel_state lets `clawbox channels
 * status` (another process) see what the running service sees.
 */
import type { Migration } from "./migration.ts";

export const channelsInboxOutbox: Migration = {
  version: 400,
  name: "channel inbox, outbox and state",
  sql: `
    CREATE TABLE channel_inbox (
      id          INTEGER PRIMARY KEY,
      channel     TEXT NOT NULL,
      message_id  TEXT NOT NULL,
      chat_type   TEXT NOT NULL,
      peer_id     TEXT NOT NULL,
      sender_id   TEXT NOT NULL,
      body        TEXT NOT NULL,
      received_at INTEGER NOT NULL,
      state       TEXT NOT NULL DEFAULT 'received',
      reason      TEXT,
      updated_at  INTEGER NOT NULL,
      UNIQUE (channel, message_id)
    );
    CREATE INDEX channel_inbox_state ON channel_inbox(state);
    CREATE TABLE channel_outbox (
      id              INTEGER PRIMARY KEY,
      channel         TEXT NOT NULL,
      chat_type       TEXT NOT NULL,
      peer_id         TEXT NOT NULL,
      reply_to        TEXT,
      seq             INTEGER NOT NULL,
      body            TEXT NOT NULL,
      state           TEXT NOT NULL DEFAULT 'pending',
      attempts        INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER NOT NULL,
      expires_at      INTEGER,
      created_at      INTEGER NOT NULL,
      sent_at         INTEGER,
      platform_id     TEXT,
      reason          TEXT,
      UNIQUE (channel, reply_to, seq)
    );
    CREATE INDEX channel_outbox_due ON channel_outbox(state, next_attempt_at);
    CREATE TABLE channel_state (
      channel       TEXT PRIMARY KEY,
      state         TEXT NOT NULL,
      reason        TEXT,
      pid           INTEGER,
      last_event_at INTEGER,
      updated_at    INTEGER NOT NULL
    );
  `,
};
