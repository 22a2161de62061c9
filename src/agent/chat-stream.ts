/**
 * The one vocabulary of a chat turn streamed to a web client as server-sent events:
 * `POST /api/chat` (docs/HTTP-API.md) and the console's chat (docs/CONSOLE.md) both send
 * their turn through `streamChatTurn`, so an event has one name and one payload wherever
 * it is read. Events, in order:
 *
 * - `delta` `{text}`: a piece of the visible reply (cleaned text; thinking never streams);
 * - `tool` `{id, name, args}` / `tool_end` `{id, name, isError, result}` and
 *   `compaction` `{phase}`: the turn's work, sent only to a stream that asked for it
 *   (`detail: "work"`, the console, which speaks as the owner);
 * - last, `done` with the turn's result (the same object as `/api/chat`'s JSON answer),
 *   or `error` with it when the turn failed.
 *
 * A comment line `: keep-alive` goes out while the model is quiet, so proxies and the
 * server's idle timeout keep a slow turn's connection open. Events are written in the
 * order they happened, one after the other. The turn's events are read by their fields,
 * so any backend shaped like the agent (`AgentEvent`) can be streamed.
 */
import { type Message, messageText } from "../messages/index.ts";

/** A turn's event as a stream reads it: an `AgentEvent`, or anything shaped like one. */
export interface TurnEventLike {
  type: string;
  [key: string]: unknown;
}

/** What a stream shows: the reply alone, or the reply and the turn's work. */
export type ChatStreamDetail = "reply" | "work";

/** The end of a turn as both routes answer it (`ChatResult`, or the server's view of it). */
export interface ChatStreamResult {
  sessionId: string;
  sessionKey: string;
  reply: string;
  silent: boolean;
  error?: { code: string; message: string } | undefined;
}

export type ChatStreamEvent =
  | { event: "delta"; data: { text: string } }
  | { event: "tool"; data: { id: string; name: string; args: Record<string, unknown> } }
  | { event: "tool_end"; data: { id: string; name: string; isError: boolean; result: string } }
  | { event: "compaction"; data: { phase: "compaction_start" | "compaction_end" } }
  | { event: "done" | "error"; data: ChatStreamResult };

/** Where the events go: Hono's `SSEStreamingApi` has this shape. */
export interface ChatSseSink {
  writeSSE(message: { event: string; data: string }): Promise<void>;
  write(text: string): Promise<unknown>;
}

/** The visible text a `message_update` event carries, if any (never thinking). */
export function textDeltaOf(event: TurnEventLike): string | undefined {
  if (event.type !== "message_update") return undefined;
  const delta = event.delta ?? (event.event as { delta?: unknown } | undefined)?.delta;
  const kind = (event.event as { type?: unknown } | undefined)?.type;
  if (kind !== undefined && kind !== "text_delta") return undefined;
  return typeof delta === "string" ? delta : undefined;
}

/** A tool result in a stream is at most this many characters (the rest is counted). */
const MAX_TOOL_RESULT_CHARS = 4000;

const clip = (text: string): string =>
  text.length > MAX_TOOL_RESULT_CHARS
    ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… (${text.length - MAX_TOOL_RESULT_CHARS} more chars)`
    : text;

const textOf = (value: unknown): string =>
  typeof value === "object" && value !== null && "content" in value
    ? messageText(value as Message)
    : "";

/** The stream event a turn's event becomes, or undefined when the stream does not show it. */
export function chatStreamEventOf(
  event: TurnEventLike,
  detail: ChatStreamDetail,
): ChatStreamEvent | undefined {
  const text = textDeltaOf(event);
  if (text) return { event: "delta", data: { text } };
  if (detail !== "work") return undefined;
  switch (event.type) {
    case "tool_execution_start":
      return {
        event: "tool",
        data: {
          id: String(event.toolCallId),
          name: String(event.toolName),
          args: (event.args ?? {}) as Record<string, unknown>,
        },
      };
    case "tool_execution_end":
      return {
        event: "tool_end",
        data: {
          id: String(event.toolCallId),
          name: String(event.toolName),
          isError: event.isError === true,
          result: clip(textOf(event.result)),
        },
      };
    case "compaction_start":
    case "compaction_end":
      return { event: "compaction", data: { phase: event.type } };
    default:
      return undefined;
  }
}

export interface ChatStreamOptions {
  detail: ChatStreamDetail;
  /** Milliseconds between keep-alive comments. */
  keepAliveMs: number;
}

/**
 * Runs one turn into an SSE stream: `run` gets the handler for the turn's events and
 * returns its result, which ends the stream as `done` or `error`.
 */
export async function streamChatTurn<R extends ChatStreamResult>(
  sink: ChatSseSink,
  options: ChatStreamOptions,
  run: (onEvent: (event: TurnEventLike) => void) => Promise<R>,
): Promise<void> {
  let chain: Promise<void> = Promise.resolve();
  const send = (out: ChatStreamEvent) => {
    chain = chain.then(() => sink.writeSSE({ event: out.event, data: JSON.stringify(out.data) }));
  };
  const keepAlive = setInterval(() => {
    chain = chain.then(async () => {
      await sink.write(": keep-alive\n\n");
    });
  }, options.keepAliveMs);
  try {
    const result = await run((event) => {
      const out = chatStreamEventOf(event, options.detail);
      if (out) send(out);
    });
    send({ event: result.error ? "error" : "done", data: result });
  } finally {
    clearInterval(keepAlive);
  }
  await chain;
}
