/** Small constructors for tool results, so every tool words success and failure alike. */
import { type ClawboxError, toClawboxError } from "../errors/index.ts";
import type { ToolOutput } from "./tool.ts";

export const textOutput = (text: string, details?: unknown): ToolOutput => ({
  content: [{ type: "text", text }],
  details,
});

/** An error result the model can act on: "CODE: message (hint)". */
export function errorOutput(error: unknown): ToolOutput {
  const classified: ClawboxError = toClawboxError(error, "TOOL_FAILED");
  return {
    content: [{ type: "text", text: `${classified.code}: ${classified.message}` }],
    isError: true,
  };
}

/** Keeps head and tail of long text, saying how much was cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - max} characters cut …]\n${text.slice(text.length - half)}`;
}
