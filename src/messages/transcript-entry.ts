/**
 * Transcript entries in the pi/OpenClaw v3 session format: an append-only tree linked by
 * `id`/`parentId`. The store keeps each entry's JSON verbatim so import → export is
 * lossless, including fields clawbox does not know.
 */
import type { Message } from "./message.ts";

export interface SessionHeader {
  type: "session";
  version: 3;
  id: string;
  timestamp: string;
  cwd: string;
  parentSession?: string;
  [extra: string]: unknown;
}

interface EntryBase {
  id: string;
  parentId: string | null;
  /** ISO-8601 */
  timestamp: string;
  [extra: string]: unknown;
}

export interface MessageEntry extends EntryBase {
  type: "message";
  message: Message;
}

export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
}

export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}

/** Entry types of the v3 format that clawbox stores and exports but does not interpret. */
export interface OtherEntry extends EntryBase {
  type: "branch_summary" | "custom_message" | "label" | "session_info";
}

export type TranscriptEntry =
  | MessageEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | CompactionEntry
  | CustomEntry
  | OtherEntry;

export type TranscriptEntryType = TranscriptEntry["type"];

export const TRANSCRIPT_ENTRY_TYPES: readonly TranscriptEntryType[] = [
  "message",
  "model_change",
  "thinking_level_change",
  "compaction",
  "custom",
  "branch_summary",
  "custom_message",
  "label",
  "session_info",
];

/** 8 hex chars, like pi's entry ids. */
export function newEntryId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
