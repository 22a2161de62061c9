/**
 * Turns the active branch (read from the latest compaction onward) into the messages a
 * model sees: the compaction summary first, as a user message, then the kept and newer
 * message entries in order. Older compaction entries on the kept span are skipped: the
 * newest summary already includes them.
 */
import type { CompactionEntry, Message, TranscriptEntry } from "../messages/index.ts";

export interface BranchMessage {
  /** Transcript entry id, or "compaction:<id>" for the summary. */
  entryId: string;
  message: Message;
}

export const SUMMARY_PREFIX =
  "The conversation history before this point was compacted into the following summary:";

export function summaryMessage(entry: CompactionEntry): Message {
  return {
    role: "user",
    content: `${SUMMARY_PREFIX}\n\n<summary>\n${entry.summary}\n</summary>`,
    timestamp: Date.parse(entry.timestamp) || 0,
  };
}

export function branchMessages(entries: readonly TranscriptEntry[]): {
  messages: BranchMessage[];
  compaction: CompactionEntry | undefined;
} {
  let compaction: CompactionEntry | undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry?.type === "compaction") {
      compaction = entry as CompactionEntry;
      break;
    }
  }
  const messages: BranchMessage[] = [];
  if (compaction)
    messages.push({ entryId: `compaction:${compaction.id}`, message: summaryMessage(compaction) });
  for (const entry of entries) {
    if (entry.type === "message") messages.push({ entryId: entry.id, message: entry.message });
  }
  return { messages, compaction };
}
