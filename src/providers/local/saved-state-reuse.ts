/**
 * Before a turn evaluates its prompt: take from disk what a sequence does not hold yet,
 * and save what every later session will want. The sequence first gets the saved state
 * sharing the longest prefix with the prompt (the session's own state from when it gave
 * its sequence away, or a shared prefix), when that beats what it holds. Then, when it
 * still does not hold the whole stable prefix (system prompt and tool list), that
 * prefix alone is evaluated and saved as a shared state, so the next new session, or
 * the first turn after a restart, loads it instead. The rest of the prompt is the turn's
 * to evaluate (local-turn.ts). `prefixLength` is any token count: the agent passes its
 * stable prefix; another caller (a plain model server) may pass whatever its clients
 * repeat.
 */
import type { LlamaContextSequence, Token } from "node-llama-cpp";
import type { KvStateCache } from "./kv-state-cache.ts";
import { sharedPrefix } from "./shared-prefix.ts";

export interface SavedStateReuse {
  /** Tokens of the stable prefix of this prompt. */
  prefixTokens: number;
  /** Tokens loaded from a saved state (0: none loaded). */
  loadedTokens: number;
  loadMs: number;
  /** Whose state was loaded: a shared prefix or the owner's own. */
  loadedFrom?: "prefix" | "own";
  /** Prefix tokens evaluated (and then saved) because no state held them. */
  prefixEvaluated: number;
  prefixEvalMs: number;
}

export async function reuseSavedState(input: {
  cache: KvStateCache;
  sequence: LlamaContextSequence;
  owner: string;
  promptTokens: readonly Token[];
  prefixLength: number;
}): Promise<SavedStateReuse> {
  const { cache, sequence } = input;
  // The last prompt token is evaluated with the generation (local-turn.ts).
  const target = input.promptTokens.slice(0, -1);
  const prefix = target.slice(0, input.prefixLength);
  const held = sharedPrefix(sequence.contextTokens, target);
  const restored = await cache.restore(sequence, target, { owner: input.owner, held });
  const outcome: SavedStateReuse = {
    prefixTokens: prefix.length,
    loadedTokens: restored?.tokens ?? 0,
    loadMs: restored?.ms ?? 0,
    ...(restored ? { loadedFrom: restored.owner === undefined ? "prefix" : "own" } : {}),
    prefixEvaluated: 0,
    prefixEvalMs: 0,
  };
  if (sharedPrefix(sequence.contextTokens, prefix) >= prefix.length) return outcome;
  await sequence.adaptStateToTokens(prefix, false);
  const from = sequence.nextTokenIndex;
  const started = performance.now();
  await sequence.evaluateWithoutGeneratingNewTokens(prefix.slice(from));
  outcome.prefixEvaluated = prefix.length - from;
  outcome.prefixEvalMs = performance.now() - started;
  await cache.save(sequence);
  return outcome;
}
