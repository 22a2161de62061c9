/**
 * Token and cost totals of a session from its stored assistant messages, per kind
 * (input, output, cacheRead, cacheWrite). Read from the usage columns and the stored
 * cost, so /status and session_status agree with what was recorded per message.
 */
import type { Store } from "../store/index.ts";

export interface UsageTotals {
  messages: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

export function sessionUsage(store: Store, sessionId: string): UsageTotals {
  const row = store.db
    .query(
      `SELECT count(*) AS messages,
         coalesce(sum(usage_input), 0) AS input, coalesce(sum(usage_output), 0) AS output,
         coalesce(sum(usage_cache_read), 0) AS cacheRead, coalesce(sum(usage_cache_write), 0) AS cacheWrite,
         coalesce(sum(usage_total), 0) AS totalTokens,
         coalesce(sum(json_extract(body, '$.message.usage.cost.input')), 0) AS costInput,
         coalesce(sum(json_extract(body, '$.message.usage.cost.output')), 0) AS costOutput,
         coalesce(sum(json_extract(body, '$.message.usage.cost.cacheRead')), 0) AS costCacheRead,
         coalesce(sum(json_extract(body, '$.message.usage.cost.cacheWrite')), 0) AS costCacheWrite,
         coalesce(sum(json_extract(body, '$.message.usage.cost.total')), 0) AS costTotal
       FROM transcript_entries WHERE session_id = ? AND type = 'message' AND role = 'assistant'`,
    )
    .get(sessionId) as Record<string, number>;
  const n = (key: string) => Number(row[key] ?? 0);
  return {
    messages: n("messages"),
    input: n("input"),
    output: n("output"),
    cacheRead: n("cacheRead"),
    cacheWrite: n("cacheWrite"),
    totalTokens: n("totalTokens"),
    cost: {
      input: n("costInput"),
      output: n("costOutput"),
      cacheRead: n("costCacheRead"),
      cacheWrite: n("costCacheWrite"),
      total: n("costTotal"),
    },
  };
}
