/**
 * Parses the JSON arguments a remote model streamed for a tool call. Empty text means
 * no arguments; anything that is not a JSON object ends the turn as
 * PROVIDER_BAD_RESPONSE naming the provider and tool (APIs call the field "input" or
 * "arguments", and the message uses the API's word).
 */
import { ClawboxError } from "../errors/index.ts";
import type { ToolCall } from "../messages/index.ts";

export function parseToolArguments(
  provider: string,
  tool: string,
  json: string,
  field: "input" | "arguments",
): Record<string, unknown> {
  let value: unknown;
  try {
    value = json.trim() === "" ? {} : JSON.parse(json);
  } catch {
    throw new ClawboxError(
      "PROVIDER_BAD_RESPONSE",
      `${provider}: tool call "${tool}" has malformed JSON ${field}`,
      { details: { tool, [field]: json.slice(0, 200) } },
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const subject = field === "input" ? "input is" : "arguments are";
    throw new ClawboxError(
      "PROVIDER_BAD_RESPONSE",
      `${provider}: tool call "${tool}" ${subject} not a JSON object`,
    );
  }
  return value as Record<string, unknown>;
}

/**
 * The arguments of a call that was streaming when the reply hit the output-token limit:
 * parsed when they happen to be complete, otherwise the call is marked `truncated` (the
 * agent answers it with an error that tells the model it ran out of tokens).
 */
export function cutOffToolCall(id: string, name: string, json: string): ToolCall {
  try {
    const value: unknown = json.trim() === "" ? {} : JSON.parse(json);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { type: "toolCall", id, name, arguments: value as Record<string, unknown> };
    }
  } catch {
    // incomplete JSON: the call was cut off
  }
  return { type: "toolCall", id, name, arguments: {}, truncated: true };
}
