/**
 * Fake OpenAI-compatible chat-completions server on 127.0.0.1 speaking real SSE, for
 * provider and agent tests. Replies are scripted per request (text, tool calls, faults);
 * with nothing scripted it answers "ok". Keys are read from `Authorization: Bearer`.
 */
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "./scripted-sse-server.ts";

export type { ScriptedServer, Step } from "./scripted-sse-server.ts";

export interface UsageScript {
  prompt?: number;
  completion?: number;
  cached?: number;
}

/** `answer` replies to requests nothing was scripted for (default: "ok"). */
export function startFakeOpenAI(
  answer: (request: RecordedRequest) => Step = () => openaiText("ok"),
): Promise<ScriptedServer> {
  return startScriptedServer(
    (headers) => headers.authorization?.replace(/^Bearer\s+/i, ""),
    answer,
    reasoningModelRefusal,
  );
}

/**
 * OpenAI's reasoning models (o1, o3, o4-mini, the gpt-5 family except the gpt-5 chat
 * models) take neither `max_tokens` nor a sampling temperature other than the default
 * (reasoning guide, "Limitations"; the API answers 400 `unsupported_parameter` /
 * `unsupported_value` with these messages).
 */
function reasoningModelRefusal(request: RecordedRequest): Step | undefined {
  const model = String(request.body.model ?? "");
  if (!/^(o\d|gpt-5)/.test(model) || /^gpt-5[^/]*-chat/.test(model)) return undefined;
  if (request.body.max_tokens !== undefined) {
    return openaiStatus(
      400,
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      { code: "unsupported_parameter", param: "max_tokens" },
    );
  }
  const temperature = request.body.temperature;
  if (temperature !== undefined && temperature !== 1) {
    return openaiStatus(
      400,
      `Unsupported value: 'temperature' does not support ${String(temperature)} with this model. Only the default (1) value is supported.`,
      { code: "unsupported_value", param: "temperature" },
    );
  }
  return undefined;
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): { data: unknown } {
  return {
    data: {
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  };
}

function usageChunk(usage: UsageScript): { data: unknown } {
  return {
    data: {
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      choices: [],
      usage: {
        prompt_tokens: usage.prompt ?? 10,
        completion_tokens: usage.completion ?? 5,
        total_tokens: (usage.prompt ?? 10) + (usage.completion ?? 5),
        prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
      },
    },
  };
}

/** A streamed text reply, one chunk per word; `dropAfter` cuts the connection after that many events. */
export function openaiText(
  text: string,
  options: {
    usage?: UsageScript;
    dropAfter?: number;
    holdAfter?: number;
    delayMs?: number;
    reasoning?: string;
  } = {},
): Step {
  const words = text.match(/\S+\s*/g) ?? [text];
  return {
    kind: "events",
    events: [
      chunk({ role: "assistant", content: "" }),
      ...(options.reasoning ? [chunk({ reasoning_content: options.reasoning })] : []),
      ...words.map((word) => chunk({ content: word })),
      chunk({}, "stop"),
      usageChunk(options.usage ?? {}),
      { data: "[DONE]" },
    ],
    ...(options.dropAfter !== undefined ? { dropAfter: options.dropAfter } : {}),
    ...(options.holdAfter !== undefined ? { holdAfter: options.holdAfter } : {}),
    ...(options.delayMs !== undefined ? { delayMs: options.delayMs } : {}),
  };
}

/** A streamed tool call; `rawArguments` is sent as is (pass malformed JSON to test that path). */
export function openaiToolCall(
  name: string,
  rawArguments: string,
  options: { id?: string; usage?: UsageScript } = {},
): Step {
  const half = Math.ceil(rawArguments.length / 2);
  return {
    kind: "events",
    events: [
      chunk({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            index: 0,
            id: options.id ?? "call_fake1",
            type: "function",
            function: { name, arguments: "" },
          },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: rawArguments.slice(0, half) } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: rawArguments.slice(half) } }] }),
      chunk({}, "tool_calls"),
      usageChunk(options.usage ?? {}),
      { data: "[DONE]" },
    ],
  };
}

export function openaiStatus(
  status: number,
  message: string,
  options: { type?: string; code?: string; param?: string; headers?: Record<string, string> } = {},
): Step {
  return {
    kind: "status",
    status,
    body: {
      error: {
        message,
        type: options.type ?? "invalid_request_error",
        param: options.param ?? null,
        code: options.code ?? null,
      },
    },
    ...(options.headers ? { headers: options.headers } : {}),
  };
}

/** The error OpenAI returns for a prompt over the context window. */
export function openaiOverflow(): Step {
  return openaiStatus(
    400,
    "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
    {
      code: "context_length_exceeded",
    },
  );
}

export const hang: Step = { kind: "hang" };
