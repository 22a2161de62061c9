/**
 * A session's own saved state: what its sequence held when it gave the sequence away
 * (or when the service stopped), private to that session, with the tokens its latest
 * replies were generated as, so its re-rendered history matches the state again.
 */
import type { Token } from "node-llama-cpp";
import { z } from "../../schema/index.ts";
import type { KvStateCache } from "./kv-state-cache.ts";
import type { SessionSlot } from "./session-sequences.ts";

/** Replies remembered with a saved state (the newest; older ones are rarely still in context). */
const SAVED_REPLIES = 64;

const repliesSchema = z.object({
  replies: z.array(z.tuple([z.string(), z.array(z.number().check(z.int(), z.minimum(0)))])),
});

export function sessionOwner(sessionId: string): string {
  return `session:${sessionId}`;
}

/** Saves what `slot`'s sequence holds as its session's own state. Never throws. */
export async function saveSessionState(cache: KvStateCache, slot: SessionSlot): Promise<void> {
  const replies = [...slot.generated.entries()].slice(-SAVED_REPLIES);
  await cache.save(slot.sequence, { owner: sessionOwner(slot.sessionId), extra: { replies } });
}

/** The reply tokens saved with `sessionId`'s state, if any. */
export async function recallReplies(
  cache: KvStateCache,
  sessionId: string,
): Promise<Map<string, Token[]> | undefined> {
  const parsed = repliesSchema.safeParse(await cache.extraOf(sessionOwner(sessionId)));
  if (!parsed.success) return undefined;
  return new Map(parsed.data.replies.map(([key, tokens]) => [key, tokens as Token[]]));
}
