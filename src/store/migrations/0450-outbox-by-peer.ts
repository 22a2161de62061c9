import type { Migration } from "./migration.ts";

/**
 * The outbox sends one reply per peer at a time, in order: picking the next row asks
 * whether an older row for the same channel and peer is still pending or being sent.
 * Without this index that question scanned every pending row, for every candidate, on
 * every send, so a flood of strangers (1,000 `/pair` each answered "try later") made
 * each send take half a second and the owner's replies waited behind them (issue 24;
 * `npm run bench -- pairing-flood`). With it the question is one index lookup.
 */
export const outboxByPeer: Migration = {
  version: 450,
  name: "outbox rows by channel and peer",
  sql: `
CREATE INDEX channel_outbox_peer ON channel_outbox(channel, peer_id, state);
`,
};
