/**
 * Server-sent events decoder for streaming HTTP responses: splits a byte stream into
 * events (`event:` name and joined `data:` lines) per the WHATWG rules, across chunk
 * boundaries and any of CRLF / LF / CR line endings. Comments and ids are ignored.
 *
 * One non-standard field is kept: llama-server reports a failure inside an open stream
 * as an `error: {json}` line (tools/server/server.cpp, `server_sent_event(sink, "error",
 * ...)`) followed by `data: [DONE]`. A WHATWG parser drops that field and the reply looks
 * empty but successful, so it is surfaced as an event named "error" with the JSON as data.
 */
export interface SseEvent {
  event: string;
  data: string;
}

export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onChunk?: () => void,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      onChunk?.();
      buffer += decoder.decode(value, { stream: true });
      let match = /\r\n|\n|\r/.exec(buffer);
      while (match) {
        // A lone CR at the buffer end may be the first half of CRLF: wait for more.
        if (match[0] === "\r" && match.index === buffer.length - 1) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === "") {
          if (data.length > 0) yield { event: event || "message", data: data.join("\n") };
          event = "";
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          let value = colon < 0 ? "" : line.slice(colon + 1);
          if (value.startsWith(" ")) value = value.slice(1);
          if (field === "event") event = value;
          else if (field === "data") data.push(value);
          else if (field === "error") yield { event: "error", data: value };
        }
        match = /\r\n|\n|\r/.exec(buffer);
      }
    }
    if (data.length > 0) yield { event: event || "message", data: data.join("\n") };
  } finally {
    reader.releaseLock();
  }
}
