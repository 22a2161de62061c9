/**
 * Fake DeepSeek chat-completions server on 127.0.0.1, written from DeepSeek's "Thinking
 * Mode" guide (api-docs.deepseek.com/guides/thinking_mode): thinking mode is on unless
 * the request says `thinking: {type: "disabled"}`; in it, an assistant message that
 * called tools must carry its `reasoning_content` in every later request, else HTTP 400
 * "The `reasoning_content` in the thinking mode must be passed back to the API."
 * (invalid_request_error). Replies are scripted as on the fake OpenAI server.
 */
import { openaiText } from "./openai-server.ts";
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "./scripted-sse-server.ts";

export type { ScriptedServer } from "./scripted-sse-server.ts";

export function startFakeDeepSeek(): Promise<ScriptedServer> {
  return startScriptedServer(
    (headers) => headers.authorization?.replace(/^Bearer\s+/i, ""),
    () => openaiText("ok"),
    missingReasoning,
  );
}

function missingReasoning(request: RecordedRequest): Step | undefined {
  const thinking = request.body.thinking as { type?: unknown } | undefined;
  if (thinking?.type === "disabled") return undefined;
  const messages = Array.isArray(request.body.messages) ? request.body.messages : [];
  const missing = messages.some((message: Record<string, unknown>) => {
    const calls = message.tool_calls;
    return (
      message.role === "assistant" &&
      Array.isArray(calls) &&
      calls.length > 0 &&
      typeof message.reasoning_content !== "string"
    );
  });
  if (!missing) return undefined;
  return {
    kind: "status",
    status: 400,
    body: {
      error: {
        message: "The `reasoning_content` in the thinking mode must be passed back to the API.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_request_error",
      },
    },
  };
}
