/**
 * Each channel's live state, shared through SQLite so `clawbox channels status` and
 * `doctor` (other processes) see what the running service sees: state with a plain
 * reason, last time the platform was heard from, and inbox/outbox counts. A state row
 * written by a process that is gone reads as "stopped".
 */
import type { Database } from "bun:sqlite";
import type { ChannelsConfig } from "../config/index.ts";
import { processAlive } from "../system/index.ts";
import type { ChannelState } from "./channel.ts";
import { CHANNELS } from "./channel-registry.ts";
import { countByState } from "./inbox.ts";

export interface ChannelStatus {
  channel: string;
  enabled: boolean;
  state: ChannelState;
  reason?: string;
  lastEventAt?: number;
  inbox: Record<string, number>;
  outbox: Record<string, number>;
  /** The newest message the outbox gave up on: why, and when it was queued. */
  lastFailure?: { reason: string; at: number };
}

interface StateRow {
  state: ChannelState;
  reason: string | null;
  pid: number | null;
  last_event_at: number | null;
}

export function writeChannelState(
  db: Database,
  channel: string,
  state: ChannelState,
  reason: string | undefined,
  now = Date.now(),
): void {
  db.query(
    `INSERT INTO channel_state (channel, state, reason, pid, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (channel) DO UPDATE SET state = excluded.state, reason = excluded.reason,
       pid = excluded.pid, updated_at = excluded.updated_at`,
  ).run(channel, state, reason ?? null, process.pid, now);
}

export function touchChannel(db: Database, channel: string, now = Date.now()): void {
  db.query("UPDATE channel_state SET last_event_at = ? WHERE channel = ?").run(now, channel);
}

function alive(pid: number | null): boolean {
  return pid !== null && (pid === process.pid || processAlive(pid));
}

function lastFailure(db: Database, channel: string): Pick<ChannelStatus, "lastFailure"> {
  const row = db
    .query(
      "SELECT reason, created_at FROM channel_outbox WHERE channel = ? AND state = 'failed' ORDER BY id DESC LIMIT 1",
    )
    .get(channel) as { reason: string | null; created_at: number } | null;
  return row
    ? { lastFailure: { reason: row.reason ?? "no reason recorded", at: row.created_at } }
    : {};
}

/** Every known channel: configured ones with their state, the others as disabled. */
export function readChannelStatus(db: Database, channels: ChannelsConfig): ChannelStatus[] {
  return CHANNELS.map((definition) => {
    const enabled = definition.settings(channels) !== undefined;
    const row = db
      .query("SELECT state, reason, pid, last_event_at FROM channel_state WHERE channel = ?")
      .get(definition.id) as StateRow | null;
    const base = {
      channel: definition.id,
      enabled,
      inbox: countByState(db, "channel_inbox", definition.id),
      outbox: countByState(db, "channel_outbox", definition.id),
      ...(row?.last_event_at ? { lastEventAt: row.last_event_at } : {}),
      ...lastFailure(db, definition.id),
    };
    if (!enabled)
      return { ...base, state: "disabled" as const, reason: definition.disabledReason(channels) };
    // A running service may stop one channel for a reason (WeCom bot handed over to a newer connection).
    if (!row || !alive(row.pid) || (row.state === "stopped" && !row.reason))
      return { ...base, state: "stopped" as const, reason: "clawbox run is not running" };
    return { ...base, state: row.state, ...(row.reason ? { reason: row.reason } : {}) };
  });
}

function counts(c: Record<string, number>): string {
  const entries = Object.entries(c);
  return entries.length === 0 ? "none" : entries.map(([k, v]) => `${v} ${k}`).join(", ");
}

export function formatChannelStatus(status: ChannelStatus, now = Date.now()): string {
  const last = status.lastEventAt
    ? `last event ${Math.round((now - status.lastEventAt) / 1000)} s ago`
    : "no events yet";
  return [
    `${status.channel}: ${status.state}${status.reason ? ` (${status.reason})` : ""}`,
    `  ${last}; inbox: ${counts(status.inbox)}; outbox: ${counts(status.outbox)}`,
  ].join("\n");
}
