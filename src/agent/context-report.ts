/**
 * `/context list|detail`: what the model would see next turn. Uses the engine's own
 * report and the context area's formatter when they exist, else summarizes the
 * assembled context (system prompt size, messages).
 */
import { type ContextEngine, formatContextReport as formatEngineReport } from "../context/index.ts";
import type { Provider, ToolDefinition } from "../providers/index.ts";
import type { SessionRow } from "../store/index.ts";
import type { ChatRequest } from "./chat-request.ts";

export async function formatContextReport(
  engine: ContextEngine,
  session: SessionRow,
  provider: Provider,
  request: ChatRequest,
  detail: boolean,
  tools: ToolDefinition[],
): Promise<string> {
  const modelKind = provider.kind === "local" ? "local" : "cloud";
  if (engine.report) {
    const report = await engine.report({
      session,
      modelKind,
      runKind: "interactive",
      provider,
      tools,
    });
    return formatEngineReport(report, detail ? "detail" : "list");
  }
  const assembled = await engine.assemble({
    session,
    provider,
    modelKind,
    runKind: "interactive",
    tools,
    dynamic: {
      channel: request.channel,
      senderId: request.senderId,
      chatType: request.chatType,
      now: Date.now(),
    },
  });
  return [
    `context engine: ${engine.id}; model: ${provider.id} (${provider.model}), window ${await provider.contextWindow()} tokens`,
    `system prompt: ${assembled.systemPrompt.length} chars (stable prefix ${assembled.cacheBoundary} chars)`,
    `messages: ${assembled.messages.length}`,
  ].join("\n");
}
