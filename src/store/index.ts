/**
 * The SQLite store: sessions, transcripts (a tree of entries), leases and migrations,
 * opened with the settings that make an acknowledged write survive a power cut.
 */
export { applyMigrations } from "./apply-migrations.ts";
export {
  DAMAGED_DATABASE_HINT,
  damagedDatabaseError,
  describeDatabaseFailure,
  emptyDatabaseError,
  isDatabaseDamage,
} from "./database-damage.ts";
export type { Migration } from "./migrations/index.ts";
export { MIGRATIONS } from "./migrations/index.ts";
export { type OpenDatabaseOptions, openDatabase } from "./open-database.ts";
export { exportSessionJsonl, type ImportOptions, importSessionJsonl } from "./session-jsonl.ts";
export {
  type Lease,
  type LeaseHolder,
  type LeaseOptions,
  SessionLeases,
} from "./session-leases.ts";
export {
  type ChatType,
  type CreateSessionInput,
  type DeliveryContext,
  type MemoryFlushState,
  type SessionPatch,
  type SessionRow,
  SessionStore,
  type SessionSummary,
} from "./session-store.ts";
export { findSqliteVec } from "./sqlite-vec-path.ts";
export { Store } from "./store.ts";
export { type BranchOptions, type NewEntry, TranscriptStore } from "./transcript-store.ts";
