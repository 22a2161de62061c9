/**
 * Home Assistant's prompts, exactly once in. Each prompt is stored (`channel_inbox`,
 * channel "mqtt") before the broker gets its PUBACK: the bridge stores it synchronously in
 * mqtt.js's `message` event, which runs before the acknowledgement is sent. With the
 * box's persistent session, a prompt the broker accepted is therefore either stored or
 * still held by the broker, across a crash or a power cut, and is answered once.
 *
 * The broker sends a prompt again (DUP flag set, same packet id) only when our PUBACK did
 * not reach it. Such a copy of a stored prompt (same packet id and payload, received in
 * the last day) is recognized and not stored twice. A fresh delivery (DUP clear) is always
 * new: the same text twice is two prompts. Rows move received → answered (the reply is
 * stored for sending) | failed.
 */
import type { Database } from "bun:sqlite";
import { createHash, randomBytes } from "node:crypto";

const CHANNEL = "mqtt";
const DUPLICATE_WINDOW_MS = 24 * 60 * 60_000;

export interface StoredPrompt {
  /** channel_inbox row id. */
  id: number;
  text: string;
  session?: string;
  /** The prompt's own `id` (echoed in the reply event). */
  promptId?: string;
  receivedAt: number;
}

export interface ArrivingPrompt {
  /** MQTT packet id (absent for QoS 0). */
  packetId?: number;
  /** The DUP flag: the broker sends this packet again. */
  dup: boolean;
  payload: Uint8Array;
  text: string;
  session?: string;
  promptId?: string;
}

interface Row {
  id: number;
  body: string;
  received_at: number;
}

export class PromptInbox {
  constructor(private readonly db: Database) {}

  /** Stores the prompt; `stored: false` when it is a broker's resend of a stored one. */
  record(prompt: ArrivingPrompt, now = Date.now()): { stored: boolean; id: number } {
    const prefix = `${prompt.packetId ?? 0}:${createHash("sha256").update(prompt.payload).digest("hex").slice(0, 32)}:`;
    if (prompt.dup && prompt.packetId !== undefined) {
      const existing = this.db
        .query(
          `SELECT id FROM channel_inbox WHERE channel = ? AND message_id >= ? AND message_id < ?
             AND received_at >= ? ORDER BY id DESC LIMIT 1`,
        )
        .get(CHANNEL, prefix, `${prefix.slice(0, -1)};`, now - DUPLICATE_WINDOW_MS) as {
        id: number;
      } | null;
      if (existing) return { stored: false, id: existing.id };
    }
    const body = JSON.stringify({
      text: prompt.text,
      ...(prompt.session ? { session: prompt.session } : {}),
      ...(prompt.promptId !== undefined ? { promptId: prompt.promptId } : {}),
    });
    const row = this.db
      .query(
        `INSERT INTO channel_inbox
           (channel, message_id, chat_type, peer_id, sender_id, body, received_at, updated_at)
         VALUES (?, ?, 'direct', ?, 'home-assistant', ?, ?, ?) RETURNING id`,
      )
      .get(
        CHANNEL,
        `${prefix}${now}-${randomBytes(4).toString("hex")}`,
        prompt.session ?? "home-assistant",
        body,
        now,
        now,
      ) as { id: number };
    return { stored: true, id: row.id };
  }

  /** Prompts stored but not answered (left by a crash), oldest first. */
  unanswered(): StoredPrompt[] {
    const rows = this.db
      .query(
        "SELECT id, body, received_at FROM channel_inbox WHERE channel = ? AND state = 'received' ORDER BY id",
      )
      .all(CHANNEL) as Row[];
    return rows.map((row) => {
      const body = JSON.parse(row.body) as { text: string; session?: string; promptId?: string };
      return { id: row.id, receivedAt: row.received_at, ...body };
    });
  }

  setState(id: number, state: "answered" | "failed", reason?: string, now = Date.now()): void {
    this.db
      .query(
        "UPDATE channel_inbox SET state = ?, reason = ?, updated_at = ? WHERE id = ? AND channel = ?",
      )
      .run(state, reason ?? null, now, id, CHANNEL);
  }
}
