/**
 * The store: one SQLite database holding sessions, transcripts and (through later
 * migrations) memory, cron and the channel outbox. Areas reach the tables through
 * the repositories here or, for their own tables, through `store.db`.
 */
import type { Database } from "bun:sqlite";
import { errorMessage } from "../errors/index.ts";
import { type OpenDatabaseOptions, openDatabase } from "./open-database.ts";
import { SessionLeases } from "./session-leases.ts";
import { SessionStore } from "./session-store.ts";
import { TranscriptStore } from "./transcript-store.ts";

export class Store {
  readonly sessions: SessionStore;
  readonly transcript: TranscriptStore;
  readonly leases: SessionLeases;

  constructor(
    readonly db: Database,
    readonly path: string,
    readonly vecVersion: string | undefined,
    readonly vecError: string | undefined,
  ) {
    this.sessions = new SessionStore(db);
    this.transcript = new TranscriptStore(db);
    this.leases = new SessionLeases(db);
  }

  static open(options: OpenDatabaseOptions): Store {
    const opened = openDatabase(options);
    return new Store(opened.db, options.path, opened.vecVersion, opened.vecError);
  }

  /** `PRAGMA integrity_check` result: "ok" when healthy. */
  integrityCheck(): string {
    const rows = this.db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join("; ");
  }

  /** `PRAGMA quick_check` (the cheaper check, for every start): "ok" when healthy. */
  quickCheck(): string {
    try {
      const rows = this.db.query("PRAGMA quick_check").all() as { quick_check: string }[];
      return rows.map((r) => r.quick_check).join("; ");
    } catch (error) {
      // A badly damaged page makes the check itself fail.
      return errorMessage(error);
    }
  }

  /**
   * Frees what this connection keeps in memory that it can read again (its page cache),
   * `PRAGMA shrink_memory`: the box's idle trim calls it after a busy period.
   */
  shrinkMemory(): void {
    this.db.run("PRAGMA shrink_memory");
  }

  close(): void {
    try {
      this.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      this.db.close();
    }
  }
}
