/**
 * The `/context list` and `/context detail` chat commands: the agent loop passes the
 * text after "/context" plus what it would assemble with, and sends back the answer.
 */
import type { ContextEngine, ContextReportInput } from "./context-engine.ts";
import { formatContextReport } from "./context-report.ts";

/** Returns the reply text; unknown sub-commands get a usage line. Never throws for input. */
export async function contextChatCommand(
  engine: ContextEngine,
  args: string,
  input: ContextReportInput,
): Promise<string> {
  const view = args.trim().split(/\s+/)[0] || "list";
  if (view !== "list" && view !== "detail") return "Usage: /context list | /context detail";
  if (!engine.report) return `The context engine "${engine.id}" does not provide a report.`;
  return formatContextReport(await engine.report(input), view);
}
