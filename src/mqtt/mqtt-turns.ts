/**
 * Prompts and button presses as agent turns in the MQTT session, for the bridge. At most
 * MAX_PENDING_TURNS run at once: stored prompts beyond it wait in order (they are in the
 * database already) and start as turns finish; button presses beyond it get an error
 * event. Each turn ends in exactly one event, `reply` or `error`; for a stored prompt it
 * goes out at QoS 2 from the durable reply store, so it is answered once across crashes.
 * The reply sensor and the status and busy states follow each turn.
 */
import type { Agent } from "../agent/index.ts";
import { toClawboxError } from "../errors/index.ts";
import { MQTT_SENDER } from "../sessions/index.ts";
import type { Logger } from "../system/index.ts";
import type { MqttBridgeStatus } from "./bridge-status.ts";
import { type BridgeStatus, HA_STATE_MAX } from "./discovery.ts";
import type { StoredPrompt } from "./prompt-inbox.ts";
import type { TopicLayout } from "./topic-layout.ts";

/** Who Home Assistant is to the agent: put this id in `agent.owners` to trust it. */
export const MQTT_SENDER_ID = MQTT_SENDER;
/**
 * Turns running at once. Stored prompts beyond it wait in the inbox (not in memory) and
 * start in order as turns finish; button presses beyond it get an error event.
 */
export const MAX_PENDING_TURNS = 16;

export interface TurnOrigin {
  id?: string;
  /** Set for button presses: "new_session" | "compact"; "select_model" for a refused choice. */
  command?: string;
  /** The stored prompt this turn answers (its event goes out exactly once). */
  inboxId?: number;
}

/** How the turns reach the broker and the status file (the bridge's connection). */
export interface BridgeOutput {
  /** QoS 1; dropped while not connected or closing. */
  publish(topic: string, payload: string, retain?: boolean): void;
  publishJson(topic: string, value: unknown, retain?: boolean): void;
  /** The event answering stored prompt `inboxId`: stored, then sent at QoS 2 until confirmed. */
  publishStoredReply(payload: string, inboxId: number): void;
  /** Writes the bridge's status for `clawbox mqtt status`. */
  save(): void;
}

export interface MqttTurnsDeps {
  agent: Pick<Agent, "chat" | "primaryModel">;
  logger: Logger;
  topics: TopicLayout;
  /** The bridge's status: its prompt counts and busy flag are kept here. */
  status: MqttBridgeStatus;
  out: BridgeOutput;
  /** The session a prompt's `session` names (the MQTT default when absent). */
  sessionKeyOf(session: string | undefined): string;
  /** True once the bridge is closing: no new turn starts. */
  closing(): boolean;
}

export interface MqttTurns {
  /** Runs one turn now (a button press, or a stored prompt's turn). */
  run(text: string, sessionKey: string, origin: TurnOrigin): void;
  /** Stored prompts to answer, after those already waiting (`first`: before them). */
  enqueue(prompts: StoredPrompt[], first?: boolean): void;
  /** An `error` event for `origin`. */
  sendError(reason: string, origin: TurnOrigin, sessionKey?: string): void;
  /** Publishes the status, busy and model states (retained). */
  publishStates(): void;
  /** Resolves when no turn is running. */
  idle(): Promise<void>;
}

/** At most 255 characters (code points, as Home Assistant counts). */
function truncateState(text: string): string {
  const chars = [...text];
  return chars.length <= HA_STATE_MAX ? text : `${chars.slice(0, HA_STATE_MAX - 1).join("")}…`;
}

export function createMqttTurns(deps: MqttTurnsDeps): MqttTurns {
  const { agent, logger, topics, status, out } = deps;
  const running = new Set<Promise<void>>();
  /** Stored prompts not started yet, oldest first. */
  const waiting: StoredPrompt[] = [];
  let lastStatus: BridgeStatus = "idle";

  const publishStates = () => {
    status.busy = running.size > 0;
    out.publish(topics.status, running.size > 0 ? "thinking" : lastStatus, true);
    out.publish(topics.busy, status.busy ? "ON" : "OFF", true);
    out.publish(topics.model, agent.primaryModel(), true);
  };

  /** The event answering a turn: exactly once (QoS 2, durable) for a stored prompt. */
  const publishEvent = (event: Record<string, unknown>, origin: TurnOrigin) => {
    const payload = JSON.stringify(event);
    if (origin.inboxId === undefined) out.publish(topics.event, payload);
    else out.publishStoredReply(payload, origin.inboxId);
  };

  const sendError = (reason: string, origin: TurnOrigin, sessionKey?: string) => {
    publishEvent(
      {
        event_type: "error",
        text: reason,
        ...(origin.id !== undefined ? { id: origin.id } : {}),
        ...(origin.command ? { command: origin.command } : {}),
        ...(sessionKey ? { session_key: sessionKey } : {}),
      },
      origin,
    );
  };

  const run = (text: string, sessionKey: string, origin: TurnOrigin) => {
    if (origin.inboxId === undefined && running.size >= MAX_PENDING_TURNS) {
      status.prompts.rejected++;
      sendError(
        `${MAX_PENDING_TURNS} prompts are already waiting; this one was dropped. Try again when the box is idle.`,
        origin,
        sessionKey,
      );
      out.save();
      return;
    }
    const turn = (async () => {
      const result = await agent.chat({
        sessionKey,
        text,
        channel: "mqtt",
        senderId: MQTT_SENDER_ID,
        senderName: "Home Assistant",
        chatType: "direct",
        ...(origin.id !== undefined ? { messageId: origin.id } : {}),
      });
      const common = {
        ...(origin.id !== undefined ? { id: origin.id } : {}),
        ...(origin.command ? { command: origin.command } : {}),
        session_key: result.sessionKey,
      };
      if (result.error) {
        status.prompts.failed++;
        lastStatus = "error";
        sendError(result.error.message, origin, result.sessionKey);
        return;
      }
      status.prompts.replied++;
      lastStatus = "idle";
      publishEvent(
        {
          event_type: "reply",
          text: result.reply,
          ...common,
          ...(result.silent ? { silent: true } : {}),
        },
        origin,
      );
      if (result.silent) return;
      out.publish(topics.reply, truncateState(result.reply), true);
      const at = new Date().toISOString();
      out.publishJson(topics.replyAttributes, { text: result.reply, ...common, at }, true);
      out.publishJson(topics.statusAttributes, { last_reply: result.reply, ...common, at }, true);
    })()
      .catch((error: unknown) => {
        // agent.chat never rejects; this guards the publishing code above.
        status.prompts.failed++;
        lastStatus = "error";
        logger.error("MQTT turn failed", { error: toClawboxError(error).message });
        sendError("The box could not finish this prompt; see its log.", origin, sessionKey);
      })
      .finally(() => {
        running.delete(turn);
        pump();
        publishStates();
        out.save();
      });
    running.add(turn);
    publishStates();
    out.save();
  };

  /** Starts stored prompts, in order, while fewer than MAX_PENDING_TURNS run. */
  const pump = () => {
    while (!deps.closing() && running.size < MAX_PENDING_TURNS) {
      const next = waiting.shift();
      if (!next) return;
      run(next.text, deps.sessionKeyOf(next.session), {
        inboxId: next.id,
        ...(next.promptId !== undefined ? { id: next.promptId } : {}),
      });
    }
  };

  return {
    run,
    enqueue(prompts, first = false) {
      if (first) waiting.unshift(...prompts);
      else waiting.push(...prompts);
      pump();
    },
    sendError,
    publishStates,
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
