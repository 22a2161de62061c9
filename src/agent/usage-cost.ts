/**
 * Cost of one assistant message from its usage and the provider's configured prices
 * (USD per million tokens for input, output, cache read, cache write). Providers
 * without prices (local, fake) cost nothing unless they reported a cost themselves.
 */
import type { ClawboxConfig } from "../config/index.ts";
import type { Cost, Usage } from "../messages/index.ts";

export interface Prices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export function pricesFor(config: ClawboxConfig, providerId: string): Prices | undefined {
  const provider = config.models.providers[providerId];
  return provider && "cost" in provider ? provider.cost : undefined;
}

export function costOf(usage: Usage, prices: Prices): Cost {
  const input = (usage.input * prices.input) / 1e6;
  const output = (usage.output * prices.output) / 1e6;
  const cacheRead = (usage.cacheRead * prices.cacheRead) / 1e6;
  const cacheWrite = (usage.cacheWrite * prices.cacheWrite) / 1e6;
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

/** Returns usage with `cost` filled from config prices (kept when the provider set it and no prices exist). */
export function withCost(usage: Usage, prices: Prices | undefined): Usage {
  if (!prices)
    return usage.cost
      ? usage
      : { ...usage, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  return { ...usage, cost: costOf(usage, prices) };
}
