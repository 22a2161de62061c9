/**
 * Runs the tool calls of one assistant message, in parallel or one by one. Every call
 * ends in exactly one ToolResultMessage — unknown tool, denied tool, invalid
 * arguments, a throwing tool and an abort all become error results the model can
 * read — so the transcript never holds a call without its result. Results are handed
 * to `onResult` as they complete (the caller stores them).
 */
import { toClawboxError } from "../errors/index.ts";
import type { ToolCall, ToolResultMessage } from "../messages/index.ts";
import {
  type AgentTool,
  type ToolContext,
  type ToolOutput,
  validateArguments,
} from "../tools/index.ts";
import type { EmitEvent } from "./agent-events.ts";

export interface ExecuteToolsInput {
  calls: ToolCall[];
  /** Tools the policy allows for this request, by name. */
  allowed: Map<string, AgentTool>;
  /** Every known tool, to tell "denied" from "unknown". */
  known: Set<string>;
  context: Omit<ToolContext, "toolCallId" | "onUpdate">;
  mode: "parallel" | "sequential";
  emit: EmitEvent;
  onResult: (result: ToolResultMessage) => void;
}

const errorOutput = (text: string): ToolOutput => ({
  content: [{ type: "text", text }],
  isError: true,
});

async function runOne(call: ToolCall, input: ExecuteToolsInput): Promise<ToolOutput> {
  const { context } = input;
  if (context.signal.aborted)
    return errorOutput("ABORTED: the run was stopped before this tool ran");
  if (call.truncated) {
    return errorOutput(
      `TOOL_INVALID_ARGS: ${call.name}: this call was cut off because the reply reached the output token limit before its arguments were complete, so it was not run. Retry with smaller arguments (for example, write a long file in several parts).`,
    );
  }
  const tool = input.allowed.get(call.name);
  if (!tool) {
    return input.known.has(call.name)
      ? errorOutput(
          `TOOL_DENIED: the tool "${call.name}" is not available to this sender or channel`,
        )
      : errorOutput(
          `TOOL_INVALID_ARGS: there is no tool named "${call.name}"; use one of: ${[...input.allowed.keys()].join(", ")}`,
        );
  }
  const problems = validateArguments(call.arguments, tool.parameters);
  if (problems.length > 0)
    return errorOutput(`TOOL_INVALID_ARGS: ${call.name}: ${problems.join("; ")}`);
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<ToolOutput>((resolve) => {
    onAbort = () => resolve(errorOutput(`ABORTED: ${call.name} was stopped`));
    context.signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const running = tool.execute(call.arguments, {
      ...context,
      toolCallId: call.id,
      onUpdate: (partial) =>
        input.emit({
          type: "tool_execution_update",
          toolCallId: call.id,
          toolName: call.name,
          partial,
        }),
    });
    // A tool that ignores the signal must not hold the run: the abort answers for it.
    return await Promise.race([running, stopped]);
  } catch (error) {
    const classified = toClawboxError(error, "TOOL_FAILED");
    return errorOutput(`${classified.code}: ${call.name}: ${classified.message}`);
  } finally {
    if (onAbort) context.signal.removeEventListener("abort", onAbort);
  }
}

async function runAndReport(call: ToolCall, input: ExecuteToolsInput): Promise<ToolResultMessage> {
  input.emit({
    type: "tool_execution_start",
    toolCallId: call.id,
    toolName: call.name,
    args: call.arguments,
  });
  const output = await runOne(call, input);
  const result: ToolResultMessage = {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: output.content,
    details: output.details,
    isError: output.isError === true,
    timestamp: Date.now(),
  };
  input.onResult(result);
  input.emit({
    type: "tool_execution_end",
    toolCallId: call.id,
    toolName: call.name,
    result,
    isError: result.isError,
  });
  return result;
}

/** Returns the results in call order (storage order is completion order). */
export async function executeTools(input: ExecuteToolsInput): Promise<ToolResultMessage[]> {
  if (input.mode === "sequential") {
    const results: ToolResultMessage[] = [];
    for (const call of input.calls) results.push(await runAndReport(call, input));
    return results;
  }
  return Promise.all(input.calls.map((call) => runAndReport(call, input)));
}
