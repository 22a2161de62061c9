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

/** `[turn channel: …; time: …]`: the per-turn facts stamp (one line, no `]` inside). */
const TURN_STAMP = /^\[turn [^\]\n]*\]/;
const BOOTSTRAP_CLOSE = "\n</BOOTSTRAP.md>";

/**
 * The user's own text of a stored user message's text: `decoratePending`'s lead (a
 * bootstrap-pending block or note, then the turn stamp) removed, so a transcript shows
 * what the person wrote and not the prompt text around it. Text without a lead is
 * returned as it is.
 */
export function ownText(text: string): string {
  let rest = text;
  if (rest.startsWith("[bootstrap pending]")) {
    const close = rest.indexOf(BOOTSTRAP_CLOSE);
    const cut = close >= 0 ? close + BOOTSTRAP_CLOSE.length : rest.indexOf("\n\n");
    rest = cut >= 0 ? rest.slice(cut).replace(/^\n\n/, "") : "";
  }
  const stamp = TURN_STAMP.exec(rest);
  if (stamp) rest = rest.slice(stamp[0].length).replace(/^\n\n/, "");
  return rest;
}
