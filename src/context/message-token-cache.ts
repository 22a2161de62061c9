/**
 * Per-message token counts keyed by session, entry and content shape, so a turn only
 * counts messages it has not seen (pruned variants get their own key). Bounded: the
 * map is cleared when it grows past its limit.
 */
import type { BranchMessage } from "./branch-messages.ts";
import { messageCountingText, type TokenCounter } from "./token-counter.ts";

export class MessageTokenCache {
  private readonly counts = new Map<string, number>();

  constructor(private readonly limit = 50_000) {}

  async count(sessionId: string, item: BranchMessage, counter: TokenCounter): Promise<number> {
    const { text, images } = messageCountingText(item.message);
    const key = `${counter.exact ? "x" : "e"}|${sessionId}|${item.entryId}|${text.length}|${images}|${item.message.role}`;
    const hit = this.counts.get(key);
    if (hit !== undefined) return hit;
    const n = await counter.countMessage(item.message);
    if (this.counts.size >= this.limit) this.counts.clear();
    this.counts.set(key, n);
    return n;
  }
}
