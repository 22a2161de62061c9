/** What a caller (CLI, HTTP, channel, cron) asks of the agent, and what it gets back. */
import type { DynamicContext, RunKind } from "../context/index.ts";
import type { AssistantMessage, ImageContent } from "../messages/index.ts";
import type { AgentTool } from "../tools/index.ts";
import type { AgentEvent } from "./agent-events.ts";

/**
 * The per-turn facts (channel, sender, chat type, group, message id, reply target) are
 * the context engine's DynamicContext, minus what the agent fills in (time, time zone).
 * `senderId` is channel-qualified ("cli", "qq:OPENID"); owners come from `agent.owners`.
 */
export interface ChatRequest extends Omit<DynamicContext, "now" | "timezone"> {
  sessionKey: string;
  text: string;
  images?: ImageContent[];
  runKind?: RunKind;
  /** Only these tools for this run (scheduler extraction turns); they still pass the policy. */
  onlyTools?: AgentTool[];
  /** "required" makes the run's first model call call a tool (later calls are "auto"). */
  toolChoice?: "auto" | "required";
  /**
   * When the session is busy: "followup" (default) runs after the current run;
   * "steer" injects the message into the running run at its next turn boundary and
   * resolves with that run's result.
   */
  queueMode?: "followup" | "steer";
  /**
   * True only when the channel itself authenticated the sender as the owner (the HTTP
   * API with `server.token`); otherwise ownership comes from `agent.owners`.
   */
  authenticatedOwner?: boolean;
  /**
   * When the session belongs to another principal (SPEC §9a): "refuse" (default) answers
   * with a SESSION_FORBIDDEN error and stores nothing; "new-session" starts a fresh
   * session under the key for this sender (channels use it: their keys are the sender's
   * own, so a mismatch means an owner was added or removed since).
   */
  foreignSession?: "refuse" | "new-session";
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
