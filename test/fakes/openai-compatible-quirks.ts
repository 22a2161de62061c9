/**
 * What real OpenAI-compatible servers send that the plain OpenAI stream does not, as
 * steps for the fake OpenAI server. Each builder names the server and the public source
 * it follows; none is derived from clawbox's own parser.
 */
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
