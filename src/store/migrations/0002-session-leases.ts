/** One row per session key while a run holds it: the cross-process lock of a session. */
import type { Migration } from "./migration.ts";

export const sessionLeases: Migration = {
  version: 2,
  name: "session leases",
  sql: `
    CREATE TABLE session_leases (
      session_key TEXT PRIMARY KEY,
      token       TEXT NOT NULL,
      owner_pid   INTEGER NOT NULL,
      owner_host  TEXT NOT NULL,
      acquired_at INTEGER NOT NULL,
      expires_at  INTEGER NOT NULL
    );
  `,
};
