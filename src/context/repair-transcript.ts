/**
 * Transcript repair before every model call (in memory): each assistant tool call is
 * followed by exactly one result, in call order. Results are moved next to their call,
 * orphan and duplicate results dropped, and a synthetic error result inserted for a
 * call that has none (e.g. the run was killed mid-tool). Results are matched to calls
 * within their turn, not by id alone, because some servers reuse call ids every turn.
 * Failed assistant messages without content are dropped. The stored transcript is
 * never changed here.
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

/** Entry id prefix of a result the repair made up (not in the stored transcript). */
export const SYNTHETIC_ENTRY_PREFIX = "synthetic:";

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
  const matched = matchResults(input);
  const callIds = new Set<string>();
  for (const item of input) for (const call of toolCalls(item.message)) callIds.add(call.id);
  const out: BranchMessage[] = [];
  input.forEach((item, index) => {
    const message = item.message;
    if (message.role === "toolResult") {
      // Placed after its call (below); duplicates and orphans are dropped.
      if (!matched.used.has(index)) {
        if (callIds.has(message.toolCallId)) report.droppedDuplicates += 1;
        else report.droppedOrphans += 1;
      }
      return;
    }
    if (message.role === "assistant" && isEmptyFailure(message)) {
      report.droppedEmptyErrors += 1;
      return;
    }
    out.push(item);
    toolCalls(message).forEach((call, k) => {
      const found = matched.byCall.get(`${index}:${k}`);
      if (found !== undefined) {
        if (found !== index + 1 + k) report.moved += 1;
        out.push(input[found] as BranchMessage);
      } else {
        report.synthesized += 1;
        out.push({
          entryId: `${SYNTHETIC_ENTRY_PREFIX}${call.id}`,
          message: synthetic(call, message.timestamp),
        });
      }
    });
  });
  return { messages: out, report };
}

/**
 * Pairs each call (`messageIndex:callIndex`) with the position of its result. Servers
 * that reuse ids across turns (`call_0` every turn) are common, so a result belongs to
 * the nearest unanswered call before it with its id. A call still unanswered then takes
 * a leftover result with its id from the same turn (one that was stored ahead of it);
 * results never cross a user message.
 */
function matchResults(input: readonly BranchMessage[]): {
  byCall: Map<string, number>;
  used: Set<number>;
} {
  const byCall = new Map<string, number>();
  const used = new Set<number>();
  const open = new Map<string, string>(); // call id -> newest unanswered call key
  const calls: { key: string; id: string; turn: number }[] = [];
  const turnOf: number[] = [];
  let turn = 0;
  input.forEach((item, index) => {
    const message = item.message;
    if (message.role === "user") turn += 1;
    turnOf[index] = turn;
    if (message.role === "toolResult") {
      const key = open.get(message.toolCallId);
      if (key !== undefined) {
        byCall.set(key, index);
        used.add(index);
        open.delete(message.toolCallId);
      }
      return;
    }
    toolCalls(message).forEach((call, k) => {
      const key = `${index}:${k}`;
      open.set(call.id, key);
      calls.push({ key, id: call.id, turn });
    });
  });
  for (const call of calls) {
    if (byCall.has(call.key)) continue;
    const leftover = input.findIndex(
      (item, index) =>
        !used.has(index) &&
        turnOf[index] === call.turn &&
        item.message.role === "toolResult" &&
        item.message.toolCallId === call.id,
    );
    if (leftover >= 0) {
      byCall.set(call.key, leftover);
      used.add(leftover);
    }
  }
  return { byCall, used };
}

function isEmptyFailure(message: AssistantMessage): boolean {
  return (
    (message.stopReason === "error" || message.stopReason === "aborted") &&
    message.content.length === 0
  );
}
