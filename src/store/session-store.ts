/**
 * Session rows (SPEC §6). A session key names a conversation place
 * (`agent:<agentId>:<channel>:<chatType>:<peerId>`); it points at its current session,
 * and `/new` starts another session under the same key without deleting the old one.
 */
import type { Database } from "bun:sqlite";
import { ClawboxError } from "../errors/index.ts";
import type { SessionHeader } from "../messages/index.ts";

export type ChatType = "direct" | "group" | "system";

export interface DeliveryContext {
  channel: string;
  to?: string;
  accountId?: string;
}

export interface MemoryFlushState {
  /** compactionCount at which the last pre-compaction flush ran. */
  lastFlushCompactionCount?: number;
  lastFlushAt?: number;
}

export interface SessionRow {
  sessionId: string;
  sessionKey: string;
  createdAt: number;
  updatedAt: number;
  chatType: ChatType;
  deliveryContext: DeliveryContext | null;
  origin: Record<string, unknown> | null;
  lastChannel: string | null;
  lastTo: string | null;
  compactionCount: number;
  memoryFlush: MemoryFlushState | null;
  skillsSnapshot: unknown;
  model: string | null;
  abortedLastRun: boolean;
  /** Active branch tip of the transcript tree. */
  leafId: string | null;
  header: SessionHeader;
  /**
   * Who the session belongs to ("owner", a stranger's sender id, "group:<identity>:<id>");
   * null for rows stored before it was recorded (the sessions area infers it).
   */
  principal: string | null;
}

interface RawSessionRow {
  session_id: string;
  session_key: string;
  created_at: number;
  updated_at: number;
  chat_type: string;
  delivery_context: string | null;
  origin: string | null;
  last_channel: string | null;
  last_to: string | null;
  compaction_count: number;
  memory_flush: string | null;
  skills_snapshot: string | null;
  model: string | null;
  aborted_last_run: number;
  leaf_id: string | null;
  header: string;
  principal: string | null;
}

const parseJson = <T>(text: string | null): T | null =>
  text === null ? null : (JSON.parse(text) as T);

function toRow(raw: RawSessionRow): SessionRow {
  return {
    sessionId: raw.session_id,
    sessionKey: raw.session_key,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
    chatType: raw.chat_type as ChatType,
    deliveryContext: parseJson<DeliveryContext>(raw.delivery_context),
    origin: parseJson<Record<string, unknown>>(raw.origin),
    lastChannel: raw.last_channel,
    lastTo: raw.last_to,
    compactionCount: raw.compaction_count,
    memoryFlush: parseJson<MemoryFlushState>(raw.memory_flush),
    skillsSnapshot: parseJson<unknown>(raw.skills_snapshot),
    model: raw.model,
    abortedLastRun: raw.aborted_last_run !== 0,
    leafId: raw.leaf_id,
    header: JSON.parse(raw.header) as SessionHeader,
    principal: raw.principal,
  };
}

export interface CreateSessionInput {
  sessionKey: string;
  sessionId?: string;
  chatType?: ChatType;
  deliveryContext?: DeliveryContext;
  origin?: Record<string, unknown>;
  /** Who the session belongs to (see SessionRow.principal). */
  principal?: string;
  cwd?: string;
  /** A full header (import); its id becomes the session id. */
  header?: SessionHeader;
  createdAt?: number;
}

export type SessionPatch = Partial<
  Pick<
    SessionRow,
    | "chatType"
    | "deliveryContext"
    | "origin"
    | "lastChannel"
    | "lastTo"
    | "compactionCount"
    | "memoryFlush"
    | "skillsSnapshot"
    | "model"
    | "abortedLastRun"
    | "leafId"
    | "principal"
  >
>;

const COLUMN: Record<keyof SessionPatch, string> = {
  chatType: "chat_type",
  deliveryContext: "delivery_context",
  origin: "origin",
  lastChannel: "last_channel",
  lastTo: "last_to",
  compactionCount: "compaction_count",
  memoryFlush: "memory_flush",
  skillsSnapshot: "skills_snapshot",
  model: "model",
  abortedLastRun: "aborted_last_run",
  leafId: "leaf_id",
  principal: "principal",
};

const JSON_COLUMNS = new Set(["deliveryContext", "origin", "memoryFlush", "skillsSnapshot"]);

export interface SessionSummary extends SessionRow {
  messageCount: number;
  entryCount: number;
}

export class SessionStore {
  constructor(private readonly db: Database) {}

  create(input: CreateSessionInput): SessionRow {
    const now = input.createdAt ?? Date.now();
    const sessionId = input.header?.id ?? input.sessionId ?? crypto.randomUUID();
    const header: SessionHeader = input.header ?? {
      type: "session",
      version: 3,
      id: sessionId,
      timestamp: new Date(now).toISOString(),
      cwd: input.cwd ?? "",
    };
    this.db.transaction(() => {
      this.db.run(
        `INSERT INTO sessions (session_id, session_key, created_at, updated_at, chat_type,
           delivery_context, origin, header, principal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          sessionId,
          input.sessionKey,
          now,
          now,
          input.chatType ?? "direct",
          input.deliveryContext ? JSON.stringify(input.deliveryContext) : null,
          input.origin ? JSON.stringify(input.origin) : null,
          JSON.stringify(header),
          input.principal ?? null,
        ],
      );
      this.db.run(
        "INSERT INTO session_keys(session_key, session_id) VALUES (?, ?) ON CONFLICT(session_key) DO UPDATE SET session_id = excluded.session_id",
        [input.sessionKey, sessionId],
      );
    })();
    return this.require(sessionId);
  }

  get(sessionId: string): SessionRow | undefined {
    const raw = this.db
      .query("SELECT * FROM sessions WHERE session_id = ?")
      .get(sessionId) as RawSessionRow | null;
    return raw ? toRow(raw) : undefined;
  }

  require(sessionId: string): SessionRow {
    const row = this.get(sessionId);
    if (!row) {
      throw new ClawboxError("SESSION_NOT_FOUND", `no session with id ${sessionId}`, {
        hint: 'list sessions with "clawbox sessions list"',
      });
    }
    return row;
  }

  /** The session a key currently points at. */
  byKey(sessionKey: string): SessionRow | undefined {
    const raw = this.db
      .query(
        "SELECT s.* FROM session_keys k JOIN sessions s ON s.session_id = k.session_id WHERE k.session_key = ?",
      )
      .get(sessionKey) as RawSessionRow | null;
    return raw ? toRow(raw) : undefined;
  }

  /** Finds by session id first, then by key; the CLI accepts either. */
  find(idOrKey: string): SessionRow | undefined {
    return this.get(idOrKey) ?? this.byKey(idOrKey);
  }

  getOrCreate(input: CreateSessionInput): SessionRow {
    return this.byKey(input.sessionKey) ?? this.create(input);
  }

  update(sessionId: string, patch: SessionPatch): void {
    const sets: string[] = ["updated_at = ?"];
    const values: (string | number | null)[] = [Date.now()];
    for (const [key, value] of Object.entries(patch) as [keyof SessionPatch, unknown][]) {
      if (value === undefined) continue;
      sets.push(`${COLUMN[key]} = ?`);
      if (JSON_COLUMNS.has(key)) values.push(value === null ? null : JSON.stringify(value));
      else if (typeof value === "boolean") values.push(value ? 1 : 0);
      else values.push(value as string | number | null);
    }
    values.push(sessionId);
    this.db.run(`UPDATE sessions SET ${sets.join(", ")} WHERE session_id = ?`, values);
  }

  /**
   * Deletes a session and its transcript. The key stops pointing at it (the next
   * message under that key starts a fresh session); other sessions are untouched.
   */
  delete(sessionId: string): { entries: number } {
    let entries = 0;
    this.db.transaction(() => {
      entries = this.db.run("DELETE FROM transcript_entries WHERE session_id = ?", [
        sessionId,
      ]).changes;
      this.db.run("DELETE FROM session_keys WHERE session_id = ?", [sessionId]);
      this.db.run("DELETE FROM sessions WHERE session_id = ?", [sessionId]);
    })();
    return { entries };
  }

  /**
   * Deletes all but the `keep` newest sessions ever created under `sessionKey` (with
   * their transcripts); returns how many went. For keys that start a fresh session per
   * run (the heartbeat), which would otherwise pile up forever.
   */
  pruneOlder(sessionKey: string, keep: number): number {
    const old = this.db
      .query(
        "SELECT session_id FROM sessions WHERE session_key = ? ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?",
      )
      .all(sessionKey, keep) as { session_id: string }[];
    for (const { session_id } of old) this.delete(session_id);
    return old.length;
  }

  list(): SessionSummary[] {
    const rows = this.db
      .query(
        `SELECT s.*,
           (SELECT count(*) FROM transcript_entries e WHERE e.session_id = s.session_id AND e.type = 'message') AS message_count,
           (SELECT count(*) FROM transcript_entries e WHERE e.session_id = s.session_id) AS entry_count
         FROM sessions s ORDER BY s.updated_at DESC`,
      )
      .all() as (RawSessionRow & { message_count: number; entry_count: number })[];
    return rows.map((raw) => ({
      ...toRow(raw),
      messageCount: raw.message_count,
      entryCount: raw.entry_count,
    }));
  }
}
