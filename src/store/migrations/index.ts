/**
 * Every schema migration, in order, one file each (version ranges by area in
 * docs/DEVELOPING.md). A migration, once landed, never changes.
 */
import { sessionsAndTranscript } from "./0001-sessions-transcript.ts";
import { sessionLeases } from "./0002-session-leases.ts";
import { leaseBootClock } from "./0003-lease-boot-clock.ts";
import { sessionPrincipal } from "./0004-session-principal.ts";
import { memoryIndex } from "./0300-memory-index.ts";
import { memoryKeywordWords } from "./0301-memory-keyword-words.ts";
import { channelsInboxOutbox } from "./0400-channels.ts";
import { pairing } from "./0410-pairing.ts";
import { pairingPendingNote } from "./0411-pairing-pending-note.ts";
import { pairingNoticeOwner } from "./0412-pairing-notice-owner.ts";
import { scheduler } from "./0430-scheduler.ts";
import { cronRunDelivery } from "./0431-cron-run-delivery.ts";
import { mqttOutgoing } from "./0440-mqtt-outgoing.ts";
import { outboxByPeer } from "./0450-outbox-by-peer.ts";
import type { Migration } from "./migration.ts";

export type { Migration } from "./migration.ts";

/** Every migration, in any order (they are sorted by version when applied). */
export const MIGRATIONS: readonly Migration[] = [
  sessionsAndTranscript,
  sessionLeases,
  leaseBootClock,
  sessionPrincipal,
  memoryIndex,
  memoryKeywordWords,
  channelsInboxOutbox,
  pairing,
  pairingPendingNote,
  pairingNoticeOwner,
  scheduler,
  cronRunDelivery,
  mqttOutgoing,
  outboxByPeer,
];
