import type { Migration } from "./migration.ts";

/**
 * Pairing (issue 24): the pending codes strangers asked for with `/pair` (one per person,
 * bounded in number), and a log of owner notices and failed approvals, which the rate
 * limits count. Shared by the running service, `clawbox pairing` and the console.
 */
export const pairing: Migration = {
  version: 410,
  name: "pairing",
  sql: `
CREATE TABLE pairing_requests (
  code TEXT PRIMARY KEY,
  channel TEXT NOT NULL,
  chat_type TEXT NOT NULL,
  sender_id TEXT NOT NULL,
  owner_id TEXT NOT NULL UNIQUE,
  sender_name TEXT,
  message_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  replied_at INTEGER NOT NULL
);
CREATE INDEX pairing_requests_expiry ON pairing_requests (expires_at);
CREATE TABLE pairing_events (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('notice', 'failure')),
  at INTEGER NOT NULL
);
CREATE INDEX pairing_events_kind ON pairing_events (kind, at);
`,
};
