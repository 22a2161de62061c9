/**
 * The transcript tree of each session, append-only. Each entry's JSON is kept verbatim
 * (lossless import/export); usage is copied into columns for accounting queries.
 * Appending moves the session's leaf in the same transaction, so after a crash the
 * leaf always names an entry that exists.
 */
import type { Database, Statement } from "bun:sqlite";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import {
  type CompactionEntry,
  newEntryId,
  type TranscriptEntry,
  type Usage,
} from "../messages/index.ts";

/** What a caller supplies; id, parentId and timestamp are filled in when absent. */
export type NewEntry = TranscriptEntry extends infer E
  ? E extends TranscriptEntry
    ? Omit<E, "id" | "parentId" | "timestamp"> & {
        id?: string;
        parentId?: string | null;
        timestamp?: string;
      }
    : never
  : never;

interface EntryRow {
  body: string;
}

export interface BranchOptions {
  /** Start from this entry instead of the session's leaf. */
  leafId?: string;
  /** Stop at the latest compaction on the branch (include it and its kept entries). */
  fromLastCompaction?: boolean;
}

export class TranscriptStore {
  private readonly getStmt: Statement;
  private readonly insertStmt: Statement;
  private readonly nextSeqStmt: Statement;
  private readonly leafStmt: Statement;
  private readonly setLeafStmt: Statement;

  constructor(private readonly db: Database) {
    this.getStmt = db.query("SELECT body FROM transcript_entries WHERE session_id = ? AND id = ?");
    this.insertStmt = db.query(
      `INSERT INTO transcript_entries (session_id, seq, id, parent_id, type, timestamp, role, body,
         usage_input, usage_output, usage_cache_read, usage_cache_write, usage_total)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.nextSeqStmt = db.query(
      "SELECT coalesce(max(seq), 0) + 1 AS seq FROM transcript_entries WHERE session_id = ?",
    );
    this.leafStmt = db.query("SELECT leaf_id FROM sessions WHERE session_id = ?");
    this.setLeafStmt = db.query(
      "UPDATE sessions SET leaf_id = ?, updated_at = ? WHERE session_id = ?",
    );
  }

  get(sessionId: string, id: string): TranscriptEntry | undefined {
    const row = this.getStmt.get(sessionId, id) as EntryRow | null;
    return row ? (JSON.parse(row.body) as TranscriptEntry) : undefined;
  }

  leafId(sessionId: string): string | null {
    const row = this.leafStmt.get(sessionId) as { leaf_id: string | null } | null;
    if (!row) {
      throw new ClawboxError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
    }
    return row.leaf_id;
  }

  /**
   * Appends one entry as a child of the leaf (or of `parentId`) and makes it the leaf.
   * Durable when this returns (WAL, synchronous=FULL).
   */
  append(sessionId: string, input: NewEntry): TranscriptEntry {
    let entry!: TranscriptEntry;
    this.db.transaction(() => {
      const parentId = input.parentId !== undefined ? input.parentId : this.leafId(sessionId);
      let id = input.id ?? newEntryId();
      while (!input.id && this.get(sessionId, id)) id = newEntryId();
      const { id: _i, parentId: _p, timestamp: _t, ...rest } = input;
      entry = {
        type: rest.type,
        id,
        parentId,
        timestamp: input.timestamp ?? new Date().toISOString(),
        ...rest,
      } as TranscriptEntry;
      this.insertRaw(sessionId, entry);
      this.setLeafStmt.run(id, Date.now(), sessionId);
    })();
    return entry;
  }

  /**
   * Appends a compaction entry and counts it on the session in one transaction: a
   * crash or failed write never leaves a summary the count does not know about
   * (which would re-run the pre-compaction memory flush) or a count without its entry.
   */
  appendCompaction(
    sessionId: string,
    input: Omit<CompactionEntry, "id" | "parentId" | "timestamp" | "type">,
  ): CompactionEntry {
    let entry!: CompactionEntry;
    this.db.transaction(() => {
      entry = this.append(sessionId, { type: "compaction", ...input }) as CompactionEntry;
      this.db.run(
        "UPDATE sessions SET compaction_count = compaction_count + 1, updated_at = ? WHERE session_id = ?",
        [Date.now(), sessionId],
      );
    })();
    return entry;
  }

  /** Inserts an entry exactly as given (import). Does not move the leaf. */
  insertRaw(sessionId: string, entry: TranscriptEntry): void {
    const seq = (this.nextSeqStmt.get(sessionId) as { seq: number }).seq;
    const usage: Usage | undefined =
      entry.type === "message" && entry.message.role === "assistant"
        ? entry.message.usage
        : undefined;
    const role = entry.type === "message" ? entry.message.role : null;
    try {
      this.insertStmt.run(
        sessionId,
        seq,
        entry.id,
        entry.parentId,
        entry.type,
        entry.timestamp,
        role,
        JSON.stringify(entry),
        usage?.input ?? null,
        usage?.output ?? null,
        usage?.cacheRead ?? null,
        usage?.cacheWrite ?? null,
        usage?.totalTokens ?? null,
      );
    } catch (error) {
      throw new ClawboxError(
        "TRANSCRIPT_INVALID",
        `cannot store entry ${entry.id} in session ${sessionId}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  /** Moves the active leaf (branching: the next append forks from here). */
  setLeaf(sessionId: string, leafId: string | null): void {
    if (leafId !== null && !this.get(sessionId, leafId)) {
      throw new ClawboxError(
        "TRANSCRIPT_INVALID",
        `entry ${leafId} is not in session ${sessionId}`,
      );
    }
    this.setLeafStmt.run(leafId, Date.now(), sessionId);
  }

  /**
   * The active branch, root-first. With `fromLastCompaction` it reads only from the
   * latest compaction's first kept entry onward: the cost follows the live context,
   * not the total history.
   */
  branch(sessionId: string, options: BranchOptions = {}): TranscriptEntry[] {
    const out: TranscriptEntry[] = [];
    let cursor = options.leafId ?? this.leafId(sessionId);
    let stopAt: string | undefined;
    let guard = 0;
    while (cursor) {
      const entry = this.get(sessionId, cursor);
      if (!entry) break;
      out.push(entry);
      if (++guard > 10_000_000) break;
      if (stopAt && entry.id === stopAt) break;
      if (options.fromLastCompaction && !stopAt && entry.type === "compaction") {
        stopAt = (entry as CompactionEntry).firstKeptEntryId;
        if (!stopAt || stopAt === entry.id) break;
      }
      cursor = entry.parentId;
    }
    return out.reverse();
  }

  /** Every entry of the session in insertion order (export). */
  all(sessionId: string): TranscriptEntry[] {
    const rows = this.db
      .query("SELECT body FROM transcript_entries WHERE session_id = ? ORDER BY seq")
      .all(sessionId) as EntryRow[];
    return rows.map((row) => JSON.parse(row.body) as TranscriptEntry);
  }

  count(sessionId: string): number {
    return (
      this.db
        .query("SELECT count(*) AS n FROM transcript_entries WHERE session_id = ?")
        .get(sessionId) as { n: number }
    ).n;
  }
}
