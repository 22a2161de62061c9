/**
 * Where a heartbeat's news goes when `heartbeat.target` is not set: the channel and
 * peer of the owner's most recently active direct session (scheduler sessions left out).
 * The peer is the owner's id on that channel's identity: `wecom:U1` last seen on
 * `wecom-bot` is pushed to U1 on `wecom-bot`.
 */
import type { Store } from "../store/index.ts";
import { type Origin, originFor } from "./origin.ts";

const SCHEDULER_CHANNELS = ["heartbeat", "cron", "followups"];

export function ownerRecentTarget(store: Store, owners: readonly string[]): Origin | undefined {
  if (owners.length === 0) return undefined;
  const row = store.db
    .query(
      `SELECT last_channel, last_to FROM sessions
       WHERE chat_type = 'direct' AND last_channel IS NOT NULL
         AND last_to IN (${owners.map(() => "?").join(", ")})
         AND last_channel NOT IN (${SCHEDULER_CHANNELS.map(() => "?").join(", ")})
       ORDER BY updated_at DESC LIMIT 1`,
    )
    .get(...owners, ...SCHEDULER_CHANNELS) as { last_channel: string; last_to: string } | null;
  if (!row) return undefined;
  // CLI and web owners have no peer to push to: the reply stays in its session.
  return originFor({ channel: row.last_channel, chatType: "direct", senderId: row.last_to });
}
