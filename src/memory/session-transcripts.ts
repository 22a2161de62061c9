/**
 * Session transcripts as searchable memory (opt-in, `memory.sessions.enabled`, as in
 * OpenClaw). Only what was said is indexed: the user's and the assistant's text on the
 * active branch, one `user:`/`assistant:` block per message, without tool calls, tool
 * results, thinking, or the per-turn facts a local model's user message starts with.
 * Each rendered line remembers its transcript entry, so a hit can name the entries.
 */
import { messageText } from "../messages/index.ts";
import type { Store } from "../store/index.ts";

/** Path of a session's text in the memory index (no file has such a path). */
export const SESSION_PATH_PREFIX = "session:";

export interface SessionSnapshot {
  sessionKey: string;
  sessionId: string;
  /** Changes whenever the transcript does (leaf and entry count). */
  version: string;
}

export interface RenderedSession {
  text: string;
  /** Transcript entry id of each line (1-based line n is `lineEntries[n - 1]`). */
  lineEntries: string[];
}

const TURN_PREFIX = /^\[turn [^\]\n]*\]\s*/;

export function sessionSnapshots(store: Store): SessionSnapshot[] {
  return store.sessions.list().map((s) => ({
    sessionKey: s.sessionKey,
    sessionId: s.sessionId,
    version: `${store.transcript.leafId(s.sessionId) ?? "empty"}:${s.entryCount}`,
  }));
}

export function renderSession(store: Store, sessionId: string): RenderedSession {
  const lines: string[] = [];
  const lineEntries: string[] = [];
  for (const entry of store.transcript.branch(sessionId)) {
    if (entry.type !== "message") continue;
    const message = entry.message;
    if (message.role !== "user" && message.role !== "assistant") continue;
    const text = messageText(message).replace(TURN_PREFIX, "").trim();
    if (!text) continue;
    text.split("\n").forEach((line, i) => {
      lines.push(i === 0 ? `${message.role}: ${line}` : line);
      lineEntries.push(entry.id);
    });
    lines.push("");
    lineEntries.push(entry.id);
  }
  return { text: lines.join("\n"), lineEntries };
}

/** The entry ids a line range of a rendered session covers, in order, without repeats. */
export function entriesOfLines(rendered: RenderedSession, start: number, end: number): string[] {
  return [...new Set(rendered.lineEntries.slice(Math.max(0, start - 1), end))];
}
