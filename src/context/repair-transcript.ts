/**
 * Transcript repair before every model call (in memory): each assistant tool call is
 * followed by exactly one result, in call order. Results are moved next to their call,
 * orphan and duplicate results dropped, and a synthetic error result inserted for a
 * call that has none (e.g. the run was killed mid-tool). Failed assistant messages
 * without content are dropped. The stored transcript is never changed here.
 */
import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from "../messages/index.ts";
import type { BranchMessage } from "./branch-messages.ts";

export interface RepairReport {
  moved: number;
  droppedOrphans: number;
  droppedDuplicates: number;
  synthesized: number;
  droppedEmptyErrors: number;
}

export const MISSING_RESULT_TEXT =
  "[clawbox] No result was recorded for this tool call (the run was interrupted). Treat it as failed.";

function toolCalls(message: Message): ToolCall[] {
  if (message.role !== "assistant") return [];
  return message.content.filter((b): b is ToolCall => b.type === "toolCall");
}

function synthetic(call: ToolCall, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: MISSING_RESULT_TEXT }],
    isError: true,
    timestamp,
  };
}

export function repairTranscript(input: readonly BranchMessage[]): {
  messages: BranchMessage[];
  report: RepairReport;
} {
  const report: RepairReport = {
    moved: 0,
    droppedOrphans: 0,
    droppedDuplicates: 0,
    synthesized: 0,
    droppedEmptyErrors: 0,
  };
  // Index every result by call id (first one wins) with its position.
  const results = new Map<string, { item: BranchMessage; index: number }>();
  const callIds = new Set<string>();
  input.forEach((item, index) => {
    for (const call of toolCalls(item.message)) callIds.add(call.id);
    if (item.message.role === "toolResult") {
      const id = item.message.toolCallId;
      if (results.has(id)) report.droppedDuplicates += 1;
      else results.set(id, { item, index });
    }
  });
  const out: BranchMessage[] = [];
  input.forEach((item, index) => {
    const message = item.message;
    if (message.role === "toolResult") {
      if (!callIds.has(message.toolCallId)) report.droppedOrphans += 1;
      // Placed after its call (below); duplicates and orphans are dropped.
      return;
    }
    if (message.role === "assistant" && isEmptyFailure(message)) {
      report.droppedEmptyErrors += 1;
      return;
    }
    out.push(item);
    const calls = toolCalls(message);
    calls.forEach((call, k) => {
      const found = results.get(call.id);
      if (found) {
        if (found.index !== index + 1 + k) report.moved += 1;
        out.push(found.item);
        results.delete(call.id);
      } else {
        report.synthesized += 1;
        out.push({ entryId: `synthetic:${call.id}`, message: synthetic(call, message.timestamp) });
      }
    });
  });
  return { messages: out, report };
}

function isEmptyFailure(message: AssistantMessage): boolean {
  return (
    (message.stopReason === "error" || message.stopReason === "aborted") &&
    message.content.length === 0
  );
}

export function repairWasNeeded(report: RepairReport): boolean {
  return Object.values(report).some((n) => n > 0);
}
