/**
 * Who a session belongs to (SPEC §9a): the owner, one stranger's sender id or one group.
 * Rows from before this migration have none; the sessions area infers it from their key
 * (and takes the owner where the key says nothing), then records it on their next turn.
 */
import type { Migration } from "./migration.ts";

export const sessionPrincipal: Migration = {
  version: 4,
  name: "session principal",
  sql: `ALTER TABLE sessions ADD COLUMN principal TEXT;`,
};
