/**
 * Outbox, exactly once out: a reply is stored before it is sent, and a row moves
 * pending → sending → sent | expired | failed under guards that make a second send of
 * the same row impossible: a row is claimed only from `pending` (one UPDATE that must
 * change one row), parts to one peer go strictly in order, a row past its reply window
 * is expired instead of sent, and a row caught in `sending` by a crash is resent only
 * when the platform dedupes that exact item (QQ by msg_id + msg_seq; WeCom's duplicate
 * check when the attempt asked for it and its window is still open), else it is failed,
 * never sent twice.
 */
import type { Database } from "bun:sqlite";
import { clockHint } from "../system/index.ts";
import type { ChannelCapabilities, ChannelTarget, OutboxItem, SendOutcome } from "./channel.ts";
import { countByState } from "./inbox.ts";

export type OutboxState = "pending" | "sending" | "sent" | "expired" | "failed";

/**
 * Attempts before a retryable failure becomes final. A certificate that is not yet
 * valid (the clock is behind until NTP syncs: no RTC) does not use them up; the reply
 * window still bounds such a row.
 */
export const MAX_SEND_ATTEMPTS = 8;
const BASE_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/**
 * A send that asked for the platform's duplicate check is resent after a crash only this
 * long before its window closes (the box's clock and the platform's need not agree).
 */
const DUPLICATE_WINDOW_MARGIN_MS = 5 * 60_000;

export interface EnqueueOptions {
  /** Platform message id answered; omit for a proactive message. */
  replyTo?: string;
  /** End of the reply window (ms since epoch); omit when there is none. */
  expiresAt?: number;
  /** Highest seq allowed for `replyTo` (the platform's replies-per-message limit). */
  maxSeq?: number;
}

interface RawOutboxRow {
  id: number;
  channel: string;
  chat_type: "direct" | "group";
  peer_id: string;
  reply_to: string | null;
  seq: number;
  body: string;
  attempts: number;
  expires_at: number | null;
}

export class Outbox {
  constructor(private readonly db: Database) {}

  /**
   * Stores the parts in order; returns the ids stored. Parts beyond `maxSeq` for one
   * `replyTo` are not stored (the platform would refuse them); they are returned as
   * `dropped` so the caller can merge or log them.
   */
  enqueue(
    target: ChannelTarget,
    parts: string[],
    options: EnqueueOptions = {},
    now = Date.now(),
  ): { ids: number[]; dropped: number } {
    const replyTo = options.replyTo ?? null;
    let seq = 0;
    if (replyTo !== null) {
      const row = this.db
        .query(
          "SELECT COALESCE(MAX(seq), 0) AS seq FROM channel_outbox WHERE channel = ? AND reply_to = ?",
        )
        .get(target.channel, replyTo) as { seq: number };
      seq = row.seq;
    }
    const insert = this.db.query(
      `INSERT INTO channel_outbox
         (channel, chat_type, peer_id, reply_to, seq, body, next_attempt_at, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    );
    const ids: number[] = [];
    let dropped = 0;
    for (const text of parts) {
      seq += 1;
      if (replyTo !== null && options.maxSeq !== undefined && seq > options.maxSeq) {
        dropped += 1;
        continue;
      }
      const row = insert.get(
        target.channel,
        target.chatType,
        target.peerId,
        replyTo,
        seq,
        JSON.stringify({ text }),
        now,
        options.expiresAt ?? null,
        now,
      ) as { id: number };
      ids.push(row.id);
    }
    return { ids, dropped };
  }

  /**
   * The next due pending row of one of `channels`, never one whose earlier part to the
   * same peer is still unsent (parts arrive in order).
   */
  nextDue(channels: string[], now = Date.now()): OutboxItem | undefined {
    if (channels.length === 0) return undefined;
    const row = this.db
      .query(nextDueSql(channels.length))
      .get(now, ...channels) as RawOutboxRow | null;
    return row ? toItem(row) : undefined;
  }

  /** True when the row's reply window is closed (then it was marked expired). */
  expireIfLate(id: number, now = Date.now()): boolean {
    const row = this.db.query("SELECT expires_at FROM channel_outbox WHERE id = ?").get(id) as {
      expires_at: number | null;
    } | null;
    if (!row || row.expires_at === null || row.expires_at > now) return false;
    this.db
      .query(
        "UPDATE channel_outbox SET state = 'expired', reason = ? WHERE id = ? AND state = 'pending'",
      )
      .run("reply window closed before it could be sent", id);
    return true;
  }

  /** Claims a pending row for one send attempt; false when someone else has it. */
  claim(id: number): boolean {
    const result = this.db
      .query(
        "UPDATE channel_outbox SET state = 'sending', attempts = attempts + 1 WHERE id = ? AND state = 'pending'",
      )
      .run(id);
    return result.changes === 1;
  }

  /** Records the outcome of a claimed row's send attempt. */
  settle(item: OutboxItem, outcome: SendOutcome, now = Date.now()): OutboxState {
    if (outcome.kind === "sent" || outcome.kind === "duplicate") {
      this.db
        .query(
          "UPDATE channel_outbox SET state = 'sent', sent_at = ?, platform_id = ?, reason = ? WHERE id = ? AND state = 'sending'",
        )
        .run(
          now,
          outcome.kind === "sent" ? (outcome.platformId ?? null) : null,
          outcome.kind === "duplicate" ? "platform already had it" : null,
          item.id,
        );
      return "sent";
    }
    if (
      outcome.kind === "retry" &&
      (item.attempts < MAX_SEND_ATTEMPTS || clockHint(outcome.reason) !== undefined)
    ) {
      const backoff = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (item.attempts - 1));
      const delay = Math.max(outcome.afterMs ?? 0, backoff * (0.5 + Math.random() / 2));
      this.db
        .query(
          "UPDATE channel_outbox SET state = 'pending', next_attempt_at = ?, reason = ? WHERE id = ? AND state = 'sending'",
        )
        .run(now + Math.round(delay), outcome.reason, item.id);
      return "pending";
    }
    this.db
      .query(
        "UPDATE channel_outbox SET state = 'failed', reason = ? WHERE id = ? AND state = 'sending'",
      )
      .run(outcome.reason, item.id);
    return "failed";
  }

  /**
   * Whether the platform's duplicate check may be asked for this send: no row with the
   * same text went to the same peer inside the window (the check would drop this one).
   */
  duplicateCheckFits(item: OutboxItem, windowSeconds: number, now = Date.now()): boolean {
    return (
      this.db
        .query(
          `SELECT 1 FROM channel_outbox
           WHERE channel = ? AND peer_id = ? AND body = ? AND id != ? AND state = 'sent' AND sent_at >= ?
           LIMIT 1`,
        )
        .get(
          item.channel,
          item.peerId,
          JSON.stringify({ text: item.text }),
          item.id,
          now - windowSeconds * 1000,
        ) === null
    );
  }

  /**
   * After a restart: rows a crash caught in `sending` go back to pending when the
   * channel dedupes resends, else they are failed with the reason (never sent twice).
   */
  recover(
    channel: string,
    capabilities: ChannelCapabilities,
    now = Date.now(),
  ): { resumed: number; failed: number } {
    const window = capabilities.duplicateCheckSeconds;
    if (window !== undefined && window > 0) {
      // The attempt began at or after next_attempt_at. It asked for the check unless an
      // identical text went to the peer inside the window before it (then it did not ask);
      // it is resent only while the platform's window is surely still open.
      const windowMs = window * 1000;
      const resumed = this.db
        .query(
          `UPDATE channel_outbox AS o SET state = 'pending', reason = 'resent after a restart (the platform drops a repeat)'
           WHERE o.channel = ? AND o.state = 'sending'
             AND o.next_attempt_at <= ? AND o.next_attempt_at > ?
             AND NOT EXISTS (
               SELECT 1 FROM channel_outbox e
               WHERE e.channel = o.channel AND e.peer_id = o.peer_id AND e.body = o.body
                 AND e.id != o.id AND e.state = 'sent' AND e.sent_at >= o.next_attempt_at - ?)`,
        )
        .run(channel, now, now - windowMs + DUPLICATE_WINDOW_MARGIN_MS, windowMs).changes;
      return { resumed, failed: this.failInterrupted(channel) };
    }
    if (capabilities.idempotentReplies) {
      const resumed = this.db
        .query(
          "UPDATE channel_outbox SET state = 'pending', reason = 'resent after a restart' WHERE channel = ? AND state = 'sending' AND reply_to IS NOT NULL",
        )
        .run(channel).changes;
      const failed = this.failInterrupted(channel);
      return { resumed, failed };
    }
    return { resumed: 0, failed: this.failInterrupted(channel) };
  }

  private failInterrupted(channel: string): number {
    return this.db
      .query(
        "UPDATE channel_outbox SET state = 'failed', reason = 'interrupted while sending; not resent so it cannot arrive twice' WHERE channel = ? AND state = 'sending'",
      )
      .run(channel).changes;
  }

  /** Whether any reply to this inbound message is stored (answered before a crash). */
  hasReplyTo(channel: string, replyTo: string): boolean {
    return (
      this.db
        .query("SELECT 1 FROM channel_outbox WHERE channel = ? AND reply_to = ? LIMIT 1")
        .get(channel, replyTo) !== null
    );
  }

  /** Where each of these rows is (a reminder's parts); missing rows are left out. */
  statesOf(ids: readonly number[]): { id: number; state: OutboxState; reason?: string }[] {
    if (ids.length === 0) return [];
    const marks = ids.map(() => "?").join(", ");
    const rows = this.db
      .query(`SELECT id, state, reason FROM channel_outbox WHERE id IN (${marks}) ORDER BY id`)
      .all(...ids) as { id: number; state: OutboxState; reason: string | null }[];
    return rows.map((r) => ({
      id: r.id,
      state: r.state,
      ...(r.reason ? { reason: r.reason } : {}),
    }));
  }

  counts(channel: string): Record<string, number> {
    return countByState(this.db, "channel_outbox", channel);
  }
}

function toItem(row: RawOutboxRow): OutboxItem {
  const body = JSON.parse(row.body) as { text: string };
  return {
    id: row.id,
    channel: row.channel,
    chatType: row.chat_type,
    peerId: row.peer_id,
    ...(row.reply_to !== null ? { replyTo: row.reply_to } : {}),
    seq: row.seq,
    text: body.text,
    attempts: row.attempts,
  };
}

/**
 * The query behind `nextDue` for `channelCount` channels (parameters: now, then the
 * channels). Its "an older part to this peer is unsent" check is an index lookup
 * (channel_outbox_peer), not a scan of every pending row, so a thousand strangers
 * waiting for an answer do not slow each send down (src/channels/outbox-next-due.test.ts).
 */
export function nextDueSql(channelCount: number): string {
  const marks = Array.from({ length: channelCount }, () => "?").join(", ");
  return `SELECT o.id, o.channel, o.chat_type, o.peer_id, o.reply_to, o.seq, o.body, o.attempts, o.expires_at
         FROM channel_outbox o
         WHERE o.state = 'pending' AND o.next_attempt_at <= ? AND o.channel IN (${marks})
           AND NOT EXISTS (
             SELECT 1 FROM channel_outbox e
             WHERE e.channel = o.channel AND e.peer_id = o.peer_id AND e.id < o.id
               AND e.state IN ('pending', 'sending'))
         ORDER BY o.id LIMIT 1`;
}
