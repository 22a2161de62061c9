/** Small constructors for tool results, so every tool words success and failure alike. */
import { ClawboxError, toClawboxError } from "../errors/index.ts";
import type { ToolOutput } from "./tool.ts";

export const textOutput = (text: string, details?: unknown): ToolOutput => ({
  content: [{ type: "text", text }],
  details,
});

/**
 * A system error from a file operation without the paths Node puts in its message
 * (`EISDIR: illegal operation on a directory, rename '/home/…/ws/.x.tmp' -> '…'`):
 * tool errors reach strangers, who learn no location on the box (docs/SECURITY.md).
 */
function withoutPaths(error: unknown): unknown {
  const errno = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof errno.code !== "string" || !errno.syscall) return error;
  const what = errno.message.replace(/^[A-Z0-9_]+: /, "").split(", ")[0] ?? errno.code;
  return new ClawboxError("TOOL_FAILED", `${errno.code}: ${what} (${errno.syscall})`);
}

/** An error result the model can act on: "CODE: message (hint)". */
export function errorOutput(error: unknown): ToolOutput {
  const classified: ClawboxError = toClawboxError(withoutPaths(error), "TOOL_FAILED");
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
