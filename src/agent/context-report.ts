/**
 * `/context list|detail`: what the model would see next turn. Uses the context area's
 * own report formatter when it offers one (`formatContextReport`), else summarizes
 * the assembled context (system prompt size, messages, tools, the engine's report).
 */
import type { ContextEngine } from "../context/context-engine.ts";
import type { Provider } from "../providers/index.ts";
import type { SessionRow } from "../store/index.ts";
import type { ChatRequest } from "./chat-request.ts";

export async function formatContextReport(
  engine: ContextEngine,
  session: SessionRow,
  provider: Provider,
  request: ChatRequest,
  detail: boolean,
): Promise<string> {
  const assembled = await engine.assemble({
    session,
    provider,
    modelKind: provider.kind === "local" ? "local" : "cloud",
    runKind: "interactive",
    tools: [],
    dynamic: {
      channel: request.channel,
      senderId: request.senderId,
      chatType: request.chatType,
      now: Date.now(),
    },
  });
  const lines = [
    `context engine: ${engine.id}; model: ${provider.id} (${provider.model}), window ${await provider.contextWindow()} tokens`,
    `system prompt: ${assembled.systemPrompt.length} chars (stable prefix ${assembled.cacheBoundary} chars)`,
    `messages: ${assembled.messages.length}`,
  ];
  if (assembled.report !== undefined) {
    lines.push(detail ? JSON.stringify(assembled.report, null, 2) : summarize(assembled.report));
  }
  return lines.join("\n");
}

function summarize(report: unknown): string {
  if (typeof report === "string") return report;
  if (typeof report !== "object" || report === null) return String(report);
  return Object.entries(report)
    .filter(([, value]) => typeof value !== "object" || value === null)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join("\n");
}
