/** The text of `/status`: session, model, and usage and cost totals per kind. */
import type { SessionRow, Store } from "../store/index.ts";
import { sessionUsage } from "../tools/index.ts";

const usd = (n: number) => `$${n.toFixed(n > 0 && n < 0.01 ? 6 : 4)}`;

export function statusReport(store: Store, session: SessionRow, modelChain: string[]): string {
  const usage = sessionUsage(store, session.sessionId);
  return [
    `session: ${session.sessionKey} (${session.sessionId})`,
    `model: ${session.model ?? "(none yet)"}; chain: ${modelChain.join(" → ") || "(none)"}`,
    `messages from the model: ${usage.messages}; compactions: ${session.compactionCount}`,
    `input:       ${usage.input} tokens, ${usd(usage.cost.input)}`,
    `output:      ${usage.output} tokens, ${usd(usage.cost.output)}`,
    `cache read:  ${usage.cacheRead} tokens, ${usd(usage.cost.cacheRead)}`,
    `cache write: ${usage.cacheWrite} tokens, ${usd(usage.cost.cacheWrite)}`,
    `total:       ${usage.totalTokens} tokens, ${usd(usage.cost.total)}`,
  ].join("\n");
}
