/**
 * One agent turn started by the scheduler (a reminder, a heartbeat), run in a given
 * session on behalf of the origin's sender, with its reply delivered to the origin.
 * Silent replies (NO_REPLY, HEARTBEAT_OK) are not delivered.
 */
import type { ChatRequest, ChatResult } from "../agent/index.ts";
import type { Delivery } from "./delivery.ts";
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
}

export async function runScheduledTurn(
  agent: TurnRunner,
  delivery: Delivery,
  turn: ScheduledTurn,
): Promise<TurnOutcome> {
  const { origin } = turn;
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
  if (result.error)
    return {
      ok: false,
      detail: result.error.message,
      reply: result.reply,
      silent: false,
      code: result.error.code,
    };
  if (result.silent || !result.reply.trim())
    return { ok: true, detail: "silent reply: nothing delivered", reply: "", silent: true };
  const where = await delivery.deliver(turn.target ?? origin, result.reply);
  return { ok: true, detail: where, reply: result.reply, silent: false };
}
