/**
 * Usage accounting, the one place cost is computed: every assistant message carries
 * token counts and, when the provider config names prices, their cost. Prices are per
 * million tokens, per class. Providers price their own messages; the agent re-prices
 * whatever reaches the transcript with `withCost` (any provider, e.g. a test double).
 */
import type { Cost, Usage } from "../messages/index.ts";

export interface CostPerMillion {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Builds a Usage with `totalTokens` and `cost` filled in from the four counts. */
export function makeUsage(
  counts: { input: number; output: number; cacheRead: number; cacheWrite: number },
  prices?: CostPerMillion,
): Usage {
  const usage: Usage = {
    input: counts.input,
    output: counts.output,
    cacheRead: counts.cacheRead,
    cacheWrite: counts.cacheWrite,
    totalTokens: counts.input + counts.output + counts.cacheRead + counts.cacheWrite,
  };
  usage.cost = computeCost(usage, prices);
  return usage;
}

/** Cost of `usage` at `prices` (zero everywhere when no prices are configured). */
export function computeCost(usage: Usage, prices?: CostPerMillion): Cost {
  const p = prices ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const input = (usage.input * p.input) / 1e6;
  const output = (usage.output * p.output) / 1e6;
  const cacheRead = (usage.cacheRead * p.cacheRead) / 1e6;
  const cacheWrite = (usage.cacheWrite * p.cacheWrite) / 1e6;
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

/** `usage` with `cost` from `prices`; without prices a cost the provider set is kept. */
export function withCost(usage: Usage, prices: CostPerMillion | undefined): Usage {
  if (!prices && usage.cost) return usage;
  return { ...usage, cost: computeCost(usage, prices) };
}
