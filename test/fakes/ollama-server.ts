/**
 * Fake Ollama OpenAI-compatible endpoint (`POST /v1/chat/completions`) on 127.0.0.1,
 * written from Ollama's source (github.com/ollama/ollama), not from clawbox's client:
 * - openai/openai.go `FromChatRequest` (v0.12.5 to v0.21.2): `reasoning_effort` (or
 *   `reasoning.effort`) must be "high", "medium", "low" or "none", anything else is
 *   refused with "invalid reasoning value: '<v>' (must be "high", "medium", "low", or
 *   "none")"; "none" becomes think=false, no value leaves think unset;
 * - server/routes.go `ChatHandler`: a model with the thinking capability thinks when think
 *   is unset; a model without it answers 400 `"<model>" does not support thinking` when
 *   asked to think;
 * - middleware/openai.go: errors are `{"error": {message, type, param, code}}` with type
 *   invalid_request_error for 400 and api_error otherwise (`openai.NewError`); chunks
 *   carry thinking in `delta.reasoning` and text in `delta.content` (`openai.ToChunks`).
 */
import { openaiStatus } from "./openai-server.ts";
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "./scripted-sse-server.ts";

export type { ScriptedServer } from "./scripted-sse-server.ts";

const EFFORTS = ["high", "medium", "low", "none"];

export interface FakeOllamaOptions {
  /** The model has the thinking capability (qwen3, deepseek-r1, gpt-oss…). Default true. */
  thinking?: boolean;
}

export function startFakeOllama(options: FakeOllamaOptions = {}): Promise<ScriptedServer> {
  const thinkingModel = options.thinking ?? true;
  return startScriptedServer(
    () => undefined,
    (request) => ollamaReply("ok", thinkingModel && think(request) !== false ? "let me think" : ""),
    (request) => {
      const effort = requestedEffort(request);
      if (effort !== undefined && !EFFORTS.includes(effort)) {
        return ollamaError(
          400,
          `invalid reasoning value: '${effort}' (must be "high", "medium", "low", or "none")`,
        );
      }
      if (!thinkingModel && typeof think(request) === "string") {
        return ollamaError(400, `"${String(request.body.model)}" does not support thinking`);
      }
      return undefined;
    },
  );
}

function requestedEffort(request: RecordedRequest): string | undefined {
  const reasoning = request.body.reasoning as { effort?: unknown } | undefined;
  const effort = reasoning !== undefined ? reasoning.effort : request.body.reasoning_effort;
  return typeof effort === "string" && effort !== "" ? effort : undefined;
}

/** Ollama's think value: undefined (model default), false ("none"), or the level. */
function think(request: RecordedRequest): string | false | undefined {
  const effort = requestedEffort(request);
  if (effort === undefined) return undefined;
  return effort === "none" ? false : effort;
}

/** An error as Ollama's OpenAI middleware writes it (`openai.NewError`). */
export function ollamaError(status: number, message: string): Step {
  return openaiStatus(status, message, {
    type: status === 400 ? "invalid_request_error" : "api_error",
  });
}

/**
 * A prompt over the model's context with truncation off: the runner's errorInputTooLong
 * "the input length exceeds the context length" (runner/ollamarunner/runner.go), passed
 * on with HTTP 400 since v0.12.5 and as a plain 500 where the status is lost.
 */
export function ollamaInputTooLong(status: 400 | 500 = 400): Step {
  return ollamaError(status, "the input length exceeds the context length");
}

/** A `chat.completion.chunk` as `openai.ToChunks` writes it. */
function ollamaChunk(fields: Record<string, unknown>): { data: unknown } {
  return {
    data: {
      id: "chatcmpl-123",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: "qwen3:8b",
      system_fingerprint: "fp_ollama",
      ...fields,
    },
  };
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): { data: unknown } {
  return ollamaChunk({ choices: [{ index: 0, delta, finish_reason: finish }] });
}

/** A streamed reply: thinking (when given) in `delta.reasoning`, then the text. */
export function ollamaReply(text: string, reasoning = ""): Step {
  return {
    kind: "events",
    events: [
      ...(reasoning ? [chunk({ role: "assistant", content: "", reasoning })] : []),
      chunk({ role: "assistant", content: text }),
      chunk({ role: "assistant", content: "" }, "stop"),
      ollamaChunk({
        choices: [],
        usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
      }),
      { data: "[DONE]" },
    ],
  };
}
