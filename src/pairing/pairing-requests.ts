/**
 * The pending pairing requests, in SQLite so the running service, `clawbox pairing` and
 * the console see the same codes. Guarantees:
 * - a code is bound to the person who asked: it maps to their `<channel>:<id>` and to
 *   nothing else, and one person has at most one pending code (asking again resends it);
 * - a code expires (`ttlMs`, default 10 minutes) and is then gone;
 * - the pending set is bounded (`maxPending`, default 10): a flood of strangers finds it
 *   full and gets no code, so neither the table nor memory grows with them;
 * - the same person asking again within `resendMs` (1 minute) is told once that their
 *   code is still pending (the code itself is not sent again), then gets no answer;
 * - each owner is told about new requests at most once per `noticeIntervalMs` (10
 *   minutes), with the number of requests waiting; a notice counts only once it was
 *   queued for that owner (`claimNotice`), so an owner who became one since the last
 *   notice, or a request whose notice reached nobody, does not leave the next unsaid;
 * - failed approvals (a wrong or expired code) are counted: after `maxFailures` (5) within
 *   `failureWindowMs` (10 minutes), approvals are refused until the window has passed.
 * Nothing here is kept in memory between calls.
 */
import type { Database } from "bun:sqlite";
import { ClawboxError } from "../errors/index.ts";
import { formatPairingCode, newPairingCode, normalizePairingCode } from "./pairing-code.ts";

export interface PairingLimits {
  ttlMs: number;
  maxPending: number;
  resendMs: number;
  noticeIntervalMs: number;
  maxFailures: number;
  failureWindowMs: number;
}

export const DEFAULT_PAIRING_LIMITS: PairingLimits = {
  ttlMs: 10 * 60_000,
  maxPending: 10,
  resendMs: 60_000,
  noticeIntervalMs: 10 * 60_000,
  maxFailures: 5,
  failureWindowMs: 10 * 60_000,
};

export interface PairingRequest {
  /** Stored form (`ABCDEFGH`); `display` is how people see it. */
  code: string;
  display: string;
  /** Channel id the request came from (`qq`, `wecom-app`, `wecom-bot`). */
  channel: string;
  chatType: "direct";
  /** The sender's platform id (the peer to answer). */
  senderId: string;
  /** What approval adds to `agent.owners`: `qq:OPENID`, `wecom:USERID`. */
  ownerId: string;
  senderName?: string;
  /** The latest `/pair` message: the approval is a reply to it while its window is open. */
  messageId: string;
  /** When that message came. */
  askedAt: number;
  createdAt: number;
  expiresAt: number;
}

export interface PairAsk {
  channel: string;
  senderId: string;
  ownerId: string;
  senderName?: string;
  messageId: string;
}

/** What to do about one `/pair`. */
export type PairAnswer =
  | {
      kind: "code";
      request: PairingRequest;
      /** A new request (not a resend). */
      fresh: boolean;
      /** Requests pending now, this one included (0 for a resend). */
      waiting: number;
    }
  /** The same person asked again soon after getting their code: say it is still pending, once. */
  | { kind: "pending"; request: PairingRequest }
  /** The same person asked again too soon and was already told: say nothing. */
  | { kind: "quiet" }
  /** The pending set is full: no code; try again later. */
  | { kind: "full"; retryAfterMs: number };

interface Row {
  code: string;
  channel: string;
  sender_id: string;
  owner_id: string;
  sender_name: string | null;
  message_id: string;
  created_at: number;
  expires_at: number;
  replied_at: number;
  /** When they were last told their code is still pending (0: never). */
  noted_at: number;
}

const toRequest = (row: Row): PairingRequest => ({
  code: row.code,
  display: formatPairingCode(row.code),
  channel: row.channel,
  chatType: "direct",
  senderId: row.sender_id,
  ownerId: row.owner_id,
  ...(row.sender_name ? { senderName: row.sender_name } : {}),
  messageId: row.message_id,
  askedAt: row.replied_at,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export class PairingRequests {
  readonly limits: PairingLimits;

  constructor(
    private readonly db: Database,
    limits: Partial<PairingLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_PAIRING_LIMITS, ...limits };
  }

  /** A `/pair` from `ask.ownerId` in a direct chat. One transaction: two processes agree. */
  ask(ask: PairAsk): PairAnswer {
    return this.db.transaction((): PairAnswer => {
      const now = this.now();
      this.prune(now);
      const mine = this.db
        .query("SELECT * FROM pairing_requests WHERE owner_id = ?")
        .get(ask.ownerId) as Row | null;
      if (mine) {
        if (now - mine.replied_at < this.limits.resendMs) {
          if (mine.noted_at >= mine.replied_at) return { kind: "quiet" };
          this.db
            .query("UPDATE pairing_requests SET noted_at = ? WHERE code = ?")
            .run(now, mine.code);
          return { kind: "pending", request: toRequest(mine) };
        }
        this.db
          .query("UPDATE pairing_requests SET replied_at = ?, message_id = ? WHERE code = ?")
          .run(now, ask.messageId, mine.code);
        return {
          kind: "code",
          request: toRequest({ ...mine, message_id: ask.messageId, replied_at: now }),
          fresh: false,
          waiting: 0,
        };
      }
      const pending = this.db
        .query("SELECT COUNT(*) AS n, MIN(expires_at) AS first FROM pairing_requests")
        .get() as { n: number; first: number | null };
      if (pending.n >= this.limits.maxPending)
        return { kind: "full", retryAfterMs: Math.max(0, (pending.first ?? now) - now) };
      const row: Row = {
        code: this.unusedCode(),
        channel: ask.channel,
        sender_id: ask.senderId,
        owner_id: ask.ownerId,
        sender_name: ask.senderName ?? null,
        message_id: ask.messageId,
        created_at: now,
        expires_at: now + this.limits.ttlMs,
        replied_at: now,
        noted_at: 0,
      };
      this.db
        .query(
          `INSERT INTO pairing_requests
             (code, channel, chat_type, sender_id, owner_id, sender_name, message_id, created_at, expires_at, replied_at)
           VALUES (?, ?, 'direct', ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          row.code,
          row.channel,
          row.sender_id,
          row.owner_id,
          row.sender_name,
          row.message_id,
          row.created_at,
          row.expires_at,
          row.replied_at,
        );
      return {
        kind: "code",
        request: toRequest(row),
        fresh: true,
        waiting: pending.n + 1,
      };
    })();
  }

  /** Pending requests, oldest first (expired ones are dropped first). */
  list(): PairingRequest[] {
    this.prune(this.now());
    const rows = this.db
      .query("SELECT * FROM pairing_requests ORDER BY created_at, code")
      .all() as Row[];
    return rows.map(toRequest);
  }

  /**
   * The pending request with this code, for an approval or a denial. A code that is not
   * pending counts as a failure; too many failures lock approvals for a while
   * (PAIRING_LOCKED); neither names any other code.
   */
  find(typed: string): PairingRequest {
    const now = this.now();
    this.prune(now);
    const wait = this.lockedForMs(now);
    if (wait > 0)
      throw new ClawboxError(
        "PAIRING_LOCKED",
        `too many wrong pairing codes: approvals are locked for ${Math.ceil(wait / 1000)} s`,
        { hint: "check the code the person was sent, then try again later" },
      );
    const code = normalizePairingCode(typed);
    const row = code
      ? (this.db.query("SELECT * FROM pairing_requests WHERE code = ?").get(code) as Row | null)
      : null;
    if (!row) {
      this.db.query("INSERT INTO pairing_events (kind, at) VALUES ('failure', ?)").run(now);
      throw new ClawboxError(
        "NOT_FOUND",
        `no pending pairing request with code ${typed.slice(0, 20)} (wrong, expired, or already handled)`,
        { hint: "see clawbox pairing list, or the console's Owners page" },
      );
    }
    return toRequest(row);
  }

  /** Removes a handled request (approved or denied); false when it was already gone. */
  remove(code: string): boolean {
    return this.db.query("DELETE FROM pairing_requests WHERE code = ?").run(code).changes === 1;
  }

  /** Milliseconds until approvals are allowed again; 0 when they are. */
  lockedForMs(now = this.now()): number {
    const since = now - this.limits.failureWindowMs;
    const rows = this.db
      .query("SELECT at FROM pairing_events WHERE kind = 'failure' AND at > ? ORDER BY at")
      .all(since) as { at: number }[];
    if (rows.length < this.limits.maxFailures) return 0;
    const oldest = rows[rows.length - this.limits.maxFailures]?.at ?? now;
    return Math.max(1, oldest + this.limits.failureWindowMs - now);
  }

  /** Whether `owner` may be told about a request now (not told within the interval). */
  noticeDue(owner: string): boolean {
    const last = this.db
      .query("SELECT MAX(at) AS at FROM pairing_events WHERE kind = 'notice' AND owner = ?")
      .get(owner) as { at: number | null };
    return last.at === null || this.now() - last.at >= this.limits.noticeIntervalMs;
  }

  /** Records that `owner` was just told (their next notice waits the interval). */
  noticeSent(owner: string): void {
    this.db
      .query("INSERT INTO pairing_events (kind, at, owner) VALUES ('notice', ?, ?)")
      .run(this.now(), owner);
  }

  private unusedCode(): string {
    for (;;) {
      const code = newPairingCode();
      if (!this.db.query("SELECT 1 FROM pairing_requests WHERE code = ?").get(code)) return code;
    }
  }

  /** Drops expired requests and events older than any window that counts them. */
  private prune(now: number): void {
    this.db.query("DELETE FROM pairing_requests WHERE expires_at <= ?").run(now);
    const keep = Math.max(this.limits.noticeIntervalMs, this.limits.failureWindowMs);
    this.db
      .query(
        "DELETE FROM pairing_events WHERE at <= ? AND id NOT IN (SELECT MAX(id) FROM pairing_events WHERE kind = 'notice' GROUP BY owner)",
      )
      .run(now - keep);
  }
}
