/**
 * Pairing notices per owner (issue 38): the notice interval counts for each owner on its
 * own, and a notice is recorded only once it was queued for someone, so a request that
 * reached nobody (or reached an owner before another became one) does not silence the
 * next notice to an owner who was never told.
 */
import type { Migration } from "./migration.ts";

export const pairingNoticeOwner: Migration = {
  version: 412,
  name: "pairing notice owner",
  sql: "ALTER TABLE pairing_events ADD COLUMN owner TEXT;",
};
