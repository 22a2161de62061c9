/**
 * The budget planner (SPEC §5): splits a model's context window (4k to 200k tokens)
 * into reply reserve, system sections, bootstrap files, skills list, tool schemas and
 * history. When the parts do not fit it degrades step by step — compact skills list,
 * shorter skills list, tighter bootstrap, fewer tool schemas, then the ladder in
 * degrade-prompt.ts — so even a 2048-token local model gets a valid prompt. Pure:
 * measuring and re-rendering is the caller's job.
 */
export interface BudgetCaps {
  contextWindow: number;
  /** Tokens kept free for the reply: configured, but at most 25% of the window. */
  reserve: number;
  /** Window minus reserve. */
  available: number;
  bootstrap: number;
  skills: number;
  tools: number;
  /** History never gets less than this before the fixed parts are cut further. */
  historyFloor: number;
}

export function budgetCaps(contextWindow: number, reserveTokens: number): BudgetCaps {
  const window = Math.max(1024, Math.floor(contextWindow));
  const reserve = Math.min(reserveTokens, Math.floor(window * 0.25));
  const available = window - reserve;
  const small = window <= 32_768;
  return {
    contextWindow: window,
    reserve,
    available,
    bootstrap: Math.floor(available * (small ? 0.25 : 0.35)),
    skills: Math.floor(available * (small ? 0.08 : 0.1)),
    tools: Math.floor(available * (small ? 0.25 : 0.3)),
    // One full reply plus a sixth of the rest, so the last exchange (a reply up to the
    // reserve) still fits next to the next message instead of forcing a compaction,
    // without starving the system prompt and tool schemas of mid-size windows.
    historyFloor: Math.floor(available / 6) + reserve,
  };
}

export interface BudgetPlan extends BudgetCaps {
  /** Measured tokens of each part as sent. */
  system: number;
  bootstrapTokens: number;
  skillsTokens: number;
  toolTokens: number;
  /** Chat-template tokens around the parts (local models), plus a little slack. */
  templateTokens: number;
  /** What is left for history (incl. the new user message). */
  history: number;
  historyTokens: number;
  /** Degradation steps taken, in order (empty when everything fit). */
  steps: string[];
  exactTokens: boolean;
}

/**
 * How many tools (in offered order) fit `cap`. The order is the agent's priority, so
 * tools are dropped from the end.
 */
export function fitTools(toolTokens: readonly number[], cap: number): number {
  let used = 0;
  for (let i = 0; i < toolTokens.length; i++) {
    used += toolTokens[i] ?? 0;
    if (used > cap) return i;
  }
  return toolTokens.length;
}

/** Chars of bootstrap that fit `capTokens`, given the measured chars/token ratio. */
export function bootstrapCharsFor(capTokens: number, chars: number, tokens: number): number {
  if (tokens <= 0 || chars <= 0) return capTokens * 3;
  return Math.max(0, Math.floor((capTokens * chars) / tokens));
}
