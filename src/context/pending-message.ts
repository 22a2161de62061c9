/**
 * The pending user message as sent: the per-turn facts stamp leads the message (the
 * system prompt stays byte-identical for every model kind); a bootstrap-pending block,
 * when present, comes first. The caller stores this decorated message so later turns
 * replay exactly the bytes the model (or a cloud provider's prefix cache) already saw.
 */
import type { UserMessage } from "../messages/index.ts";

export function decoratePending(pending: UserMessage, lead: readonly string[]): UserMessage {
  const text = lead.filter((s) => s.length > 0).join("\n\n");
  if (!text) return pending;
  if (typeof pending.content === "string")
    return { ...pending, content: `${text}\n\n${pending.content}` };
  return { ...pending, content: [{ type: "text", text: `${text}\n\n` }, ...pending.content] };
}
