/**
 * Session transcripts as searchable memory (opt-in, `memory.sessions.enabled`, as in
 * OpenClaw). Only what was said is indexed: the user's and the assistant's text on the
 * active branch, one `user:`/`assistant:` block per message, without tool calls, tool
 * results, thinking, or the per-turn facts a local model's user message starts with.
 * Each rendered line remembers its transcript entry, so a hit can name the entries.
 * Every session is indexed under its own path (key and id): a key can hold several
 * sessions (`/new`, or a fresh one when the sender's standing changed), and each hit must
 * be judged by the principal of the session it came from, not by the key's current one.
 */
import { messageText } from "../messages/index.ts";
import type { Store } from "../store/index.ts";

/** Path of a session's text in the memory index (no file has such a path). */
export const SESSION_PATH_PREFIX = "session:";

/** `session:<key>#<session id>`: one indexed text per session, never shared by two. */
export function sessionIndexPath(sessionKey: string, sessionId: string): string {
  return `${SESSION_PATH_PREFIX}${sessionKey}#${sessionId}`;
}

/** The key and session id of a `sessionIndexPath`; undefined for any other path. */
export function parseSessionIndexPath(
  path: string,
): { sessionKey: string; sessionId: string } | undefined {
  if (!path.startsWith(SESSION_PATH_PREFIX)) return undefined;
  const hash = path.lastIndexOf("#");
  if (hash <= SESSION_PATH_PREFIX.length || hash === path.length - 1) return undefined;
  return {
    sessionKey: path.slice(SESSION_PATH_PREFIX.length, hash),
    sessionId: path.slice(hash + 1),
  };
}

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
