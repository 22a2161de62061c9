/**
 * What real OpenAI-compatible servers send that the plain OpenAI stream does not, as
 * steps for the fake OpenAI server. Each builder names the server and the public source
 * it follows; none is derived from clawbox's own parser.
 */
import { openaiToolCall } from "./openai-server.ts";
import type { Step } from "./scripted-sse-server.ts";

type Json = Record<string, unknown>;

function chunk(delta: Json, finish: string | null = null): { data: Json } {
  return {
    data: {
      id: "chatcmpl-quirk",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  };
}

const usage = {
  data: {
    id: "chatcmpl-quirk",
    object: "chat.completion.chunk",
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  },
};

/**
 * NVIDIA NIM / Fireworks / some MiniMax deployments: every tool-call chunk repeats the
 * complete function name (the OpenAI reference sends it once; the official SDK assigns
 * the name rather than appending, which is why those servers work with it).
 */
export function repeatedToolName(name: string, rawArguments: string): Step {
  const third = Math.ceil(rawArguments.length / 3);
  const parts = [
    rawArguments.slice(0, third),
    rawArguments.slice(third, 2 * third),
    rawArguments.slice(2 * third),
  ];
  return {
    kind: "events",
    events: [
      chunk({
        role: "assistant",
        tool_calls: [
          { index: 0, id: "call_nim1", type: "function", function: { name, arguments: "" } },
        ],
      }),
      ...parts.map((part) =>
        chunk({
          tool_calls: [{ index: 0, type: "function", function: { name, arguments: part } }],
        }),
      ),
      chunk({}, "tool_calls"),
      usage,
      { data: "[DONE]" },
    ],
  };
}

/** The OpenAI reference stream: a tool name sent in fragments, arguments in pieces. */
export function fragmentedToolName(fragments: string[], rawArguments: string): Step {
  return {
    kind: "events",
    events: [
      ...fragments.map((fragment, i) =>
        chunk({
          tool_calls: [
            {
              index: 0,
              ...(i === 0 ? { id: "call_frag1", type: "function" } : {}),
              function: { name: fragment, ...(i === 0 ? { arguments: "" } : {}) },
            },
          ],
        }),
      ),
      chunk({ tool_calls: [{ index: 0, function: { arguments: rawArguments } }] }),
      chunk({}, "tool_calls"),
      usage,
      { data: "[DONE]" },
    ],
  };
}

/**
 * A tool call cut by `max_tokens`: the arguments stop mid-JSON and the choice ends with
 * `finish_reason: "length"` (OpenAI chat-completions reference, finish_reason values).
 */
export function lengthCutToolCall(name: string, partialArguments: string, text = ""): Step {
  return {
    kind: "events",
    events: [
      ...(text ? [chunk({ role: "assistant", content: text })] : []),
      chunk({
        tool_calls: [
          {
            index: 0,
            id: "call_cut1",
            type: "function",
            function: { name, arguments: partialArguments },
          },
        ],
      }),
      chunk({}, "length"),
      usage,
      { data: "[DONE]" },
    ],
  };
}

/**
 * llama-server (llama.cpp tools/server/server.cpp): an error after the stream opened is
 * written as a non-standard `error: {json}` SSE line, followed by `data: [DONE]`, all
 * with HTTP 200. The JSON is its error object, e.g. exceed_context_size_error.
 */
export function llamaServerStreamError(message: string, type = "exceed_context_size_error"): Step {
  const error = JSON.stringify({ code: 400, message, type, n_prompt_tokens: 5000, n_ctx: 4096 });
  return { kind: "raw", text: `error: ${error}\n\ndata: [DONE]\n\n` };
}

/**
 * DashScope (Qwen, OpenAI-compatible mode) rejects a prompt over the window with HTTP
 * 400 and "Range of input length should be [1, N]" (DashScope error-code reference,
 * InvalidParameter).
 */
export function dashscopeOverflow(limit = 30720): Step {
  return {
    kind: "status",
    status: 400,
    body: {
      error: {
        message: `<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, ${limit}]`,
        type: "invalid_request_error",
        param: null,
        code: "invalid_parameter_error",
      },
    },
  };
}

/** OpenAI error-code guide: 503 "The engine is currently overloaded, please try again later". */
export function openaiOverloaded(headers?: Record<string, string>): Step {
  return {
    kind: "status",
    status: 503,
    body: {
      error: {
        message: "The engine is currently overloaded, please try again later.",
        type: "server_error",
        param: null,
        code: null,
      },
    },
    ...(headers ? { headers } : {}),
  };
}

/**
 * MiniMax answers some failures with HTTP 200, a JSON body (not an event stream) and a
 * non-zero `base_resp.status_code` (MiniMax error-code table: 1004 authentication
 * failed, 1008 insufficient balance, 2049 invalid API key).
 */
export function minimaxOkError(statusCode: number, statusMsg: string): Step {
  return {
    kind: "raw",
    contentType: "application/json; charset=utf-8",
    text: JSON.stringify({
      id: "",
      choices: null,
      base_resp: { status_code: statusCode, status_msg: statusMsg },
    }),
  };
}

/** A reply the service's content filter stopped (finish_reason "content_filter"). */
export function contentFiltered(partial: string): Step {
  return {
    kind: "events",
    events: [
      chunk({ role: "assistant", content: partial }),
      chunk({}, "content_filter"),
      usage,
      { data: "[DONE]" },
    ],
  };
}

/**
 * Reasoning streamed as `delta.reasoning` (OpenRouter, Ollama, newer vLLM) or
 * `delta.reasoning_content` (DeepSeek, DashScope), then the answer.
 */
export function reasoningThenText(
  field: "reasoning" | "reasoning_content",
  reasoning: string,
  text: string,
): Step {
  return {
    kind: "events",
    events: [
      chunk({ role: "assistant", [field]: reasoning }),
      chunk({ content: text }),
      chunk({}, "stop"),
      usage,
      { data: "[DONE]" },
    ],
  };
}

/** DeepSeek thinking mode: reasoning_content, then a tool call in the same message. */
export function reasoningThenToolCall(reasoning: string, name: string, args: string): Step {
  return {
    kind: "events",
    events: [
      chunk({ role: "assistant", reasoning_content: reasoning }),
      chunk({
        tool_calls: [
          { index: 0, id: "call_ds1", type: "function", function: { name, arguments: args } },
        ],
      }),
      chunk({}, "tool_calls"),
      usage,
      { data: "[DONE]" },
    ],
  };
}

/**
 * vLLM rejects a prompt longer than `--max-model-len` in its input processor
 * (vllm/v1/engine/processor.py, `_validate_model_input`): "The decoder prompt (length N)
 * is longer than the maximum model length of M. Make sure that `max_model_len` is no
 * smaller than the number of text tokens." The check runs when the engine takes the
 * request, so a streamed request gets it inside the stream: HTTP 200, one `data:` event
 * with the error (`create_streaming_error_response`: type BadRequestError, code 400),
 * then `data: [DONE]` (chat_completion/serving.py, `chat_completion_stream_generator`).
 * Without streaming it is the same error object with HTTP 400.
 */
export function vllmPromptTooLong(length: number, max: number, stream = true): Step {
  const error = {
    message: `The decoder prompt (length ${length}) is longer than the maximum model length of ${max}. Make sure that \`max_model_len\` is no smaller than the number of text tokens.`,
    type: "BadRequestError",
    param: null,
    code: 400,
  };
  if (!stream) return { kind: "status", status: 400, body: { error } };
  return { kind: "events", events: [{ data: { error } }, { data: "[DONE]" }] };
}

/**
 * OpenAI streams a refusal in `delta.refusal` (chat-completions streaming reference,
 * ChatCompletionChunk: "refusal: The refusal message generated by the model"), with
 * `content: null`, and ends the choice with `finish_reason: "stop"`.
 */
export function openaiRefusal(text: string): Step {
  const half = Math.ceil(text.length / 2);
  return {
    kind: "events",
    events: [
      chunk({ role: "assistant", content: null, refusal: "" }),
      chunk({ refusal: text.slice(0, half) }),
      chunk({ refusal: text.slice(half) }),
      chunk({}, "stop"),
      usage,
      { data: "[DONE]" },
    ],
  };
}

/**
 * OpenRouter, an error after the stream opened (docs "Errors and Debugging", "Error
 * Handling During Streaming"): HTTP 200 is already sent, so the error arrives as a chunk
 * with a top-level `error: {code, message}` — `code` is the HTTP status (502: "Your chosen
 * model is down or we received an invalid response from it") or, in older examples, a
 * string such as "server_error" — and a choice with `finish_reason: "error"`.
 */
export function openrouterMidStreamError(
  partial: string,
  error: { code: number | string; message: string } = {
    code: 502,
    message: "Provider disconnected unexpectedly",
  },
): Step {
  return {
    kind: "events",
    events: [
      chunk({ role: "assistant", content: partial }),
      {
        data: {
          id: "gen-quirk",
          object: "chat.completion.chunk",
          provider: "SomeProvider",
          error: { ...error, metadata: { error_type: "provider_unavailable" } },
          choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
        },
      },
      { data: "[DONE]" },
    ],
  };
}

/**
 * A complete tool call — its last chunk carries `finish_reason: "tool_calls"` — after
 * which the connection is reset before the usage chunk and `[DONE]` arrive.
 */
export function toolCallThenReset(name: string, rawArguments: string): Step {
  const step = openaiToolCall(name, rawArguments, { id: "call_rst1" });
  return step.kind === "events" ? { ...step, resetAfter: 4 } : step;
}
