/**
 * The events a run emits, pi style. Consumers (CLI stdout, SSE, channels) get them
 * through `ChatRequest.onEvent`, which must not throw; the agent catches and logs
 * anything it throws so a broken consumer never breaks a run.
 */
import type { CompactionEvent } from "../context/index.ts";
import type { AssistantMessage, Message, ToolResultMessage } from "../messages/index.ts";

export type AssistantStreamEvent =
  | { type: "text_delta"; delta: string }
  | { type: "thinking_delta"; delta: string };

export type AgentEvent =
  | { type: "agent_start"; runId: string; sessionId: string; sessionKey: string }
  | { type: "turn_start"; runId: string; turn: number }
  | { type: "message_start"; message: Message }
  /** `delta` is the cleaned text (internal tags removed); `event.type` tells text from thinking. */
  | {
      type: "message_update";
      message: AssistantMessage;
      delta: string;
      event: AssistantStreamEvent;
    }
  | { type: "message_end"; message: Message }
  | {
      type: "tool_execution_start";
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
    }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; partial: string }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: ToolResultMessage;
      isError: boolean;
    }
  | {
      type: "turn_end";
      runId: string;
      turn: number;
      message: AssistantMessage;
      toolResults: ToolResultMessage[];
    }
  | { type: "agent_end"; runId: string; messages: Message[] }
  /** compaction_start / compaction_end, forwarded from the context engine. */
  | CompactionEvent;

export type EmitEvent = (event: AgentEvent) => void;
