/**
 * `/context list|detail`: what the model would see next turn. Uses the engine's own
 * report and the context area's formatter when they exist, else summarizes the
 * assembled context (system prompt size, messages). For anyone but the owner in a
 * direct chat it reports that sender's prompt (no MEMORY.md or USER.md) with
 * workspace-relative paths.
 */
import { type ContextEngine, formatContextReport } from "../context/index.ts";
import { modelKindOf, type Provider, type ToolDefinition } from "../providers/index.ts";
import type { SessionRow } from "../store/index.ts";
import type { ChatRequest } from "./chat-request.ts";

/** The reply to `/context list|detail` in a chat. */
export async function contextCommandReply(
  engine: ContextEngine,
  session: SessionRow,
  provider: Provider,
  request: ChatRequest,
  detail: boolean,
  tools: ToolDefinition[],
  privateFiles: boolean,
): Promise<string> {
  const modelKind = modelKindOf(provider);
  if (engine.report) {
    const report = await engine.report({
      session,
      modelKind,
      runKind: "interactive",
      provider,
      tools,
      privateFiles,
    });
    // Only the owner in a direct chat sees where things are on the box.
    return formatContextReport(report, detail ? "detail" : "list", {
      relativePaths: !privateFiles,
    });
  }
  const assembled = await engine.assemble({
    session,
    provider,
    modelKind,
    runKind: "interactive",
    tools,
    privateFiles,
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
