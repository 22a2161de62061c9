/**
 * One agent turn started by the scheduler (a reminder, a heartbeat), run in a given
 * session on behalf of the origin's sender, with its reply delivered to the origin.
 * Silent replies (NO_REPLY, HEARTBEAT_OK) are not delivered. A reminder's own text
 * (`mustSay`) always goes out: the model may add to it, never replace it (a small model
 * once answered a reminder with an unrelated sentence), and a failed or silent turn
 * still delivers the text alone.
 */
import type { ChatRequest, ChatResult } from "../agent/index.ts";
import type { Delivered, Delivery } from "./delivery.ts";
import type { Origin } from "./origin.ts";

/** The part of the agent the scheduler needs. */
export interface TurnRunner {
  chat(request: ChatRequest): Promise<ChatResult>;
}

export interface ScheduledTurn {
  sessionKey: string;
  text: string;
  /** Who it runs for (sender) and the chat's facts. */
  origin: Origin;
  /** Where the reply goes; default the origin. */
  target?: Origin;
  runKind: "cron" | "heartbeat";
  /** Text the person always gets, whatever the model says (a reminder's own text). */
  mustSay?: string;
  signal?: AbortSignal;
}

export interface TurnOutcome {
  ok: boolean;
  /** What happened, in words: delivered where, silent, or the error. */
  detail: string;
  reply: string;
  silent: boolean;
  /** Error code of a failed turn ("ABORTED" when the box was stopping). */
  code?: string;
  /** Where the text went, when something was delivered. */
  delivered?: Delivered;
}

const plain = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * The message a reminder sends: the model's reply when it already carries the
 * reminder's text, else the text first (marked as a reminder) and the reply after it.
 */
export function withReminderText(text: string, reply: string): string {
  const own = text.trim();
  const said = reply.trim();
  if (said && plain(said).includes(plain(own))) return said;
  return said ? `⏰ ${own}\n\n${said}` : `⏰ ${own}`;
}

/**
 * Failures of the model, not of the turn's right to run: a reminder still goes out alone
 * after these, never after a refusal (a session that is not the owner's, a revoked owner).
 */
function modelFailed(code: string): boolean {
  return (
    code.startsWith("MODEL_") ||
    code.startsWith("PROVIDER_") ||
    code === "CONTEXT_OVERFLOW" ||
    code === "ABORTED"
  );
}

export async function runScheduledTurn(
  agent: TurnRunner,
  delivery: Delivery,
  turn: ScheduledTurn,
): Promise<TurnOutcome> {
  const { origin } = turn;
  const target = turn.target ?? origin;
  const result = await agent.chat({
    sessionKey: turn.sessionKey,
    text: turn.text,
    channel: origin.channel,
    chatType: origin.chatType,
    ...(origin.senderId ? { senderId: origin.senderId } : {}),
    ...(origin.chatType === "group" && origin.peerId ? { groupId: origin.peerId } : {}),
    runKind: turn.runKind,
    ...(turn.signal ? { signal: turn.signal } : {}),
  });
  const mustSay = turn.mustSay?.trim();
  if (result.error) {
    const failed = {
      ok: false,
      detail: result.error.message,
      reply: result.reply,
      silent: false,
      code: result.error.code,
    };
    if (!mustSay || !modelFailed(result.error.code)) return failed;
    // The model failed; the reminder itself still reaches the person.
    const delivered = await delivery.deliver(target, withReminderText(mustSay, ""));
    return {
      ...failed,
      ok: true,
      detail: `${delivered.detail}: the reminder's text alone (the model failed: ${result.error.message})`,
      delivered,
    };
  }
  const reply = result.silent ? "" : result.reply.trim();
  if (!reply && !mustSay)
    return { ok: true, detail: "silent reply: nothing delivered", reply: "", silent: true };
  const text = mustSay ? withReminderText(mustSay, reply) : reply;
  const delivered = await delivery.deliver(target, text);
  return { ok: true, detail: delivered.detail, reply: text, silent: false, delivered };
}
