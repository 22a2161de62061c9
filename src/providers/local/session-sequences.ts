/**
 * One KV-cache sequence per session, bounded: a small board holds only a few (each
 * costs context memory), so the least recently used session gives its sequence to a
 * new one and starts from an empty cache when it comes back. A slot also remembers the
 * exact tokens each of its assistant replies was generated as, so re-rendering the
 * history reproduces what is already in the cache.
 */
import type { LlamaContext, LlamaContextSequence, Token } from "node-llama-cpp";
import { ClawboxError } from "../../errors/index.ts";

const REMEMBERED_REPLIES = 512;

export interface SessionSlot {
  sessionId: string;
  sequence: LlamaContextSequence;
  lastUsed: number;
  /** assistantKey(content) → generated tokens, oldest first. */
  generated: Map<string, Token[]>;
}

export class SessionSequences {
  private readonly slots = new Map<string, SessionSlot>();
  private clock = 0;

  constructor(
    private readonly context: LlamaContext,
    private readonly max: number,
  ) {}

  /** The slot of `sessionId`, taking a free sequence or the least recently used one. */
  async acquire(sessionId: string): Promise<SessionSlot> {
    this.clock += 1;
    const existing = this.slots.get(sessionId);
    if (existing) {
      existing.lastUsed = this.clock;
      return existing;
    }
    let sequence: LlamaContextSequence;
    if (this.slots.size < this.max && this.context.sequencesLeft > 0) {
      sequence = this.context.getSequence();
    } else {
      const victim = [...this.slots.values()].sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!victim) throw new ClawboxError("INTERNAL", "no KV-cache sequence available");
      this.slots.delete(victim.sessionId);
      await victim.sequence.clearHistory();
      sequence = victim.sequence;
    }
    const slot: SessionSlot = { sessionId, sequence, lastUsed: this.clock, generated: new Map() };
    this.slots.set(sessionId, slot);
    return slot;
  }

  remember(slot: SessionSlot, key: string, tokens: Token[]): void {
    slot.generated.delete(key);
    slot.generated.set(key, tokens);
    if (slot.generated.size > REMEMBERED_REPLIES) {
      const oldest = slot.generated.keys().next();
      if (!oldest.done) slot.generated.delete(oldest.value);
    }
  }

  active(): number {
    return this.slots.size;
  }

  capacity(): number {
    return this.max;
  }
}
