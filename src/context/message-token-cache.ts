/**
 * Per-message token counts, per session, keyed by entry and content shape, so a turn
 * only counts messages it has not seen (pruned variants get their own key). Bounded, so
 * a box that served many chats does not keep their counts forever:
 * - a session keeps only the counts of its last two assemblies (a count no assembly used
 *   since belongs to a message that compaction or pruning has left behind), each count
 *   once: a count the new assembly uses moves from the previous one's map to its own;
 * - at most `maxSessions` sessions are kept (16: the conversations a home box has going
 *   at once), the least recently used go first. The counts of a session grow with its
 *   history, so this bound, not only the idle eviction, keeps a busy box's memory flat
 *   (docs/BENCHMARKS.md, rss-after-use);
 * - `evictIdle` drops sessions unused for a while (the box's idle trim calls it).
 * A dropped count is only work to redo: the next assembly counts the message again.
 */
import type { BranchMessage } from "./branch-messages.ts";
import { messageCountingText, type TokenCounter } from "./token-counter.ts";

interface SessionCounts {
  current: Map<string, number>;
  previous: Map<string, number>;
  lastUsed: number;
}

export class MessageTokenCache {
  private readonly sessions = new Map<string, SessionCounts>();

  constructor(
    private readonly maxSessions = 16,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new assembly of `sessionId` begins: counts the previous one did not use age out. */
  startAssembly(sessionId: string): void {
    const counts = this.sessions.get(sessionId);
    if (!counts) return;
    counts.previous = counts.current;
    counts.current = new Map();
  }

  async count(sessionId: string, item: BranchMessage, counter: TokenCounter): Promise<number> {
    const { text, images } = messageCountingText(item.message);
    const key = `${counter.exact ? "x" : "e"}|${item.entryId}|${text.length}|${images}|${item.message.role}`;
    const counts = this.touch(sessionId);
    const current = counts.current.get(key);
    if (current !== undefined) return current;
    const previous = counts.previous.get(key);
    if (previous !== undefined) {
      counts.previous.delete(key);
      counts.current.set(key, previous);
      return previous;
    }
    const n = await counter.countMessage(item.message);
    counts.current.set(key, n);
    return n;
  }

  /** Drops the counts of sessions not used for `idleMs`; returns how many sessions went. */
  evictIdle(idleMs: number): number {
    const cutoff = this.now() - idleMs;
    let evicted = 0;
    for (const [sessionId, counts] of this.sessions) {
      if (counts.lastUsed > cutoff) continue;
      this.sessions.delete(sessionId);
      evicted++;
    }
    return evicted;
  }

  /** Sessions and counts held (for tests and reports). */
  size(): { sessions: number; counts: number } {
    let counts = 0;
    for (const s of this.sessions.values()) counts += s.current.size + s.previous.size;
    return { sessions: this.sessions.size, counts };
  }

  private touch(sessionId: string): SessionCounts {
    const known = this.sessions.get(sessionId);
    const counts = known ?? { current: new Map(), previous: new Map(), lastUsed: 0 };
    // Re-inserted, so the map's order is least recently used first.
    this.sessions.delete(sessionId);
    counts.lastUsed = this.now();
    this.sessions.set(sessionId, counts);
    for (const oldest of this.sessions.keys()) {
      if (this.sessions.size <= this.maxSessions) break;
      this.sessions.delete(oldest);
    }
    return counts;
  }
}
