/**
 * One KV-cache sequence per session, bounded: a small board holds only a few (each
 * costs context memory), so the least recently used session gives its sequence to a
 * new one. With saved states (kv-state-cache.ts) it first saves what the sequence held
 * (`onEvict`), so when it comes back it loads that instead of evaluating its history
 * again; without them it starts from an empty cache. A slot also remembers the exact
 * tokens each of its assistant replies was generated as, so re-rendering the history
 * reproduces what is already in the cache; a returning session gets them back
 * (`recall`), or the re-rendered history would not match its saved state.
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

export interface SessionSequenceHooks {
  /** Called before `slot` gives its sequence to another session. */
  onEvict?(slot: SessionSlot): Promise<void>;
  /** Reply tokens a session coming back remembered when it gave its sequence away. */
  recall?(sessionId: string): Promise<Map<string, Token[]> | undefined>;
}

export class SessionSequences {
  private readonly slots = new Map<string, SessionSlot>();
  private clock = 0;

  constructor(
    private readonly context: LlamaContext,
    private readonly max: number,
    private readonly hooks: SessionSequenceHooks = {},
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
      await this.hooks.onEvict?.(victim);
      await victim.sequence.clearHistory();
      sequence = victim.sequence;
    }
    const generated = (await this.hooks.recall?.(sessionId)) ?? new Map<string, Token[]>();
    const slot: SessionSlot = { sessionId, sequence, lastUsed: this.clock, generated };
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

  /** The slots holding a sequence now. */
  held(): SessionSlot[] {
    return [...this.slots.values()];
  }

  active(): number {
    return this.slots.size;
  }

  capacity(): number {
    return this.max;
  }
}
