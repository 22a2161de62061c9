/** What a caller (CLI, HTTP, channel, cron) asks of the agent, and what it gets back. */
import type { RunKind } from "../context/context-engine.ts";
import type { AssistantMessage, ImageContent } from "../messages/index.ts";
import type { AgentEvent } from "./agent-events.ts";

export interface ChatRequest {
  sessionKey: string;
  text: string;
  images?: ImageContent[];
  channel: string;
  /** Channel-qualified sender id ("cli", "qq:OPENID"); owners come from `agent.owners`. */
  senderId?: string;
  senderName?: string;
  chatType: "direct" | "group" | "system";
  groupId?: string;
  messageId?: string;
  replyTo?: string;
  runKind?: RunKind;
  /** "required" makes the run's first model call call a tool (later calls are "auto"). */
  toolChoice?: "auto" | "required";
  /**
   * When the session is busy: "followup" (default) runs after the current run;
   * "steer" injects the message into the running run at its next turn boundary and
   * resolves with that run's result.
   */
  queueMode?: "followup" | "steer";
  /** Must not throw: errors in it are caught and logged. */
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
}

export interface ChatResult {
  sessionId: string;
  sessionKey: string;
  /** Cleaned reply: thinking and internal tags removed. */
  reply: string;
  /** True when the model answered NO_REPLY / HEARTBEAT_OK: deliver nothing. */
  silent: boolean;
  message?: AssistantMessage;
  /** Set when the run failed; `message` is in plain words for the user. */
  error?: { code: string; message: string };
}
