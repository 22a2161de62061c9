/**
 * Pairing: when a person who already has a pending code was last told it is still
 * pending, so a second `/pair` within the quiet minute gets that note once, not silence
 * and not a stream of replies.
 */
import type { Migration } from "./migration.ts";

export const pairingPendingNote: Migration = {
  version: 411,
  name: "pairing pending note",
  sql: `ALTER TABLE pairing_requests ADD COLUMN noted_at INTEGER NOT NULL DEFAULT 0;`,
};
