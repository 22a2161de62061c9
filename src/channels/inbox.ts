/**
 * Inbox, exactly once in: every inbound platform message is stored keyed by (channel,
 * platform message id) before it is acknowledged. A second arrival of the same id (a
 * platform retry, a replay after resume, the same event after a restart) is reported
 * as a duplicate and never dispatched again. Rows move received → answered | ignored |
 * expired | failed; a row still `received` after a crash is dispatched once on restart.
 */
import type { Database } from "bun:sqlite";
import type { ChannelChatType, InboundMessage } from "./channel.ts";

export type InboxState = "received" | "answered" | "ignored" | "expired" | "failed";

export interface InboxRow {
  id: number;
  message: InboundMessage;
  receivedAt: number;
  state: InboxState;
  reason?: string;
}

interface RawInboxRow {
  id: number;
  body: string;
  received_at: number;
  state: InboxState;
  reason: string | null;
}

export class Inbox {
  constructor(private readonly db: Database) {}

  /** Stores the message; false when (channel, messageId) is already stored. */
  record(message: InboundMessage, now = Date.now()): { stored: boolean; id: number } {
    const inserted = this.db
      .query(
        `INSERT INTO channel_inbox
           (channel, message_id, chat_type, peer_id, sender_id, body, received_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (channel, message_id) DO NOTHING
         RETURNING id`,
      )
      .get(
        message.channel,
        message.messageId,
        message.chatType,
        peerOf(message),
        message.senderId,
        JSON.stringify(message),
        now,
        now,
      ) as { id: number } | null;
    if (inserted) return { stored: true, id: inserted.id };
    const existing = this.db
      .query("SELECT id FROM channel_inbox WHERE channel = ? AND message_id = ?")
      .get(message.channel, message.messageId) as { id: number } | null;
    return { stored: false, id: existing?.id ?? 0 };
  }

  setState(id: number, state: InboxState, reason?: string, now = Date.now()): void {
    this.db
      .query("UPDATE channel_inbox SET state = ?, reason = ?, updated_at = ? WHERE id = ?")
      .run(state, reason ?? null, now, id);
  }

  /** Messages stored but not yet answered (after a crash), oldest first. */
  unanswered(channel: string): InboxRow[] {
    const rows = this.db
      .query(
        "SELECT id, body, received_at, state, reason FROM channel_inbox WHERE channel = ? AND state = 'received' ORDER BY id",
      )
      .all(channel) as RawInboxRow[];
    return rows.map(toRow);
  }

  get(id: number): InboxRow | undefined {
    const row = this.db
      .query("SELECT id, body, received_at, state, reason FROM channel_inbox WHERE id = ?")
      .get(id) as RawInboxRow | null;
    return row ? toRow(row) : undefined;
  }

  counts(channel: string): Record<string, number> {
    return countByState(this.db, "channel_inbox", channel);
  }
}

/** Where replies to this message go: the group, or the sender of a direct message. */
export function peerOf(message: {
  chatType: ChannelChatType;
  senderId: string;
  groupId?: string;
}): string {
  return message.chatType === "group" && message.groupId ? message.groupId : message.senderId;
}

export function countByState(
  db: Database,
  table: "channel_inbox" | "channel_outbox",
  channel: string,
): Record<string, number> {
  const rows = db
    .query(`SELECT state, COUNT(*) AS n FROM ${table} WHERE channel = ? GROUP BY state`)
    .all(channel) as { state: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

function toRow(row: RawInboxRow): InboxRow {
  return {
    id: row.id,
    message: JSON.parse(row.body) as InboundMessage,
    receivedAt: row.received_at,
    state: row.state,
    ...(row.reason ? { reason: row.reason } : {}),
  };
}
