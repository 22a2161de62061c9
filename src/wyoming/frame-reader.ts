/**
 * The reading side of Wyoming framing (OHF-Voice/wyoming `wyoming/event.py`
 * `async_read_event`): a JSON header line, then `data_length` bytes of JSON merged over
 * the header's `data`, then `payload_length` bytes of payload. Strict bounds, because
 * Wyoming has no authentication and any peer allowed to connect can send anything:
 * a header line longer than `maxHeaderBytes`, a data block or payload claimed larger
 * than its limit, bad JSON, or a header without a string `type` is a fatal error (the
 * stream cannot be resynchronised after it); nothing larger than the limits is ever
 * buffered, and payload bytes are counted and dropped (this server takes no audio).
 */

export interface FrameLimits {
  /** Longest header line, newline included (Home Assistant's own reader stops at 64 KiB). */
  maxHeaderBytes: number;
  /** Largest data block. */
  maxDataBytes: number;
  /** Largest payload (counted and dropped). */
  maxPayloadBytes: number;
}

export interface ReadEvent {
  type: string;
  data: Record<string, unknown>;
  /** Payload bytes that came with it (dropped). */
  payloadBytes: number;
}

/** Why the stream is unusable: a stable code for the `error` event and plain words. */
export interface FrameError {
  code: "header-too-long" | "bad-header" | "data-too-long" | "payload-too-long" | "bad-data";
  message: string;
}

export type FrameResult = { events: ReadEvent[]; error?: FrameError };

type State =
  | { kind: "header" }
  | { kind: "data"; type: string; data: Record<string, unknown>; need: number; payload: number }
  | { kind: "payload"; event: ReadEvent; left: number };

const decoder = new TextDecoder("utf-8", { fatal: true });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function lengthField(
  header: Record<string, unknown>,
  key: "data_length" | "payload_length",
): number | string {
  const value = header[key];
  if (value === undefined || value === null) return 0;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
    return `${key} must be a whole number of bytes, not ${JSON.stringify(value).slice(0, 40)}`;
  return value;
}

export interface FrameReader {
  /** Feeds bytes; returns the events completed by them, or the error that ends the stream. */
  push(chunk: Uint8Array): FrameResult;
  /** True while part of an event has arrived and the rest has not. */
  partial(): boolean;
  /** Bytes held now (bounded by the header and data limits). */
  buffered(): number;
}

export function createFrameReader(limits: FrameLimits): FrameReader {
  let state: State = { kind: "header" };
  let buffer: Uint8Array = new Uint8Array(0);

  const append = (chunk: Uint8Array) => {
    if (buffer.byteLength === 0) {
      buffer = chunk;
      return;
    }
    const joined = new Uint8Array(buffer.byteLength + chunk.byteLength);
    joined.set(buffer, 0);
    joined.set(chunk, buffer.byteLength);
    buffer = joined;
  };

  const fail = (events: ReadEvent[], code: FrameError["code"], message: string): FrameResult => {
    buffer = new Uint8Array(0);
    return { events, error: { code, message } };
  };

  const parseJson = (bytes: Uint8Array): unknown => {
    try {
      return JSON.parse(decoder.decode(bytes));
    } catch {
      return undefined;
    }
  };

  return {
    partial: () => state.kind !== "header" || buffer.byteLength > 0,
    buffered: () => buffer.byteLength,
    push(chunk) {
      const events: ReadEvent[] = [];
      // Payload bytes are never kept: count them off before buffering anything.
      let input: Uint8Array = chunk;
      for (;;) {
        if (state.kind === "payload") {
          const take = Math.min(state.left, input.byteLength);
          state.left -= take;
          input = input.subarray(take);
          if (state.left > 0) return { events };
          events.push(state.event);
          state = { kind: "header" };
          continue;
        }
        if (input.byteLength > 0) {
          append(input);
          input = new Uint8Array(0);
        }
        if (state.kind === "header") {
          const newline = buffer.indexOf(0x0a);
          if (newline < 0) {
            if (buffer.byteLength >= limits.maxHeaderBytes)
              return fail(
                events,
                "header-too-long",
                `the header line is longer than ${limits.maxHeaderBytes} bytes (put big data in the data block)`,
              );
            return { events };
          }
          if (newline + 1 > limits.maxHeaderBytes)
            return fail(
              events,
              "header-too-long",
              `the header line is longer than ${limits.maxHeaderBytes} bytes (put big data in the data block)`,
            );
          const header = parseJson(buffer.subarray(0, newline));
          buffer = buffer.subarray(newline + 1);
          if (!isObject(header))
            return fail(events, "bad-header", "the header line is not a JSON object");
          const type = header.type;
          if (typeof type !== "string" || type.length === 0 || type.length > 64)
            return fail(
              events,
              "bad-header",
              "the header has no event type (a string, 1-64 characters)",
            );
          if (header.data !== undefined && header.data !== null && !isObject(header.data))
            return fail(events, "bad-header", "the header's data is not a JSON object");
          const dataLength = lengthField(header, "data_length");
          const payloadLength = lengthField(header, "payload_length");
          if (typeof dataLength === "string") return fail(events, "bad-header", dataLength);
          if (typeof payloadLength === "string") return fail(events, "bad-header", payloadLength);
          if (dataLength > limits.maxDataBytes)
            return fail(
              events,
              "data-too-long",
              `data_length ${dataLength} is more than this server accepts (${limits.maxDataBytes} bytes)`,
            );
          if (payloadLength > limits.maxPayloadBytes)
            return fail(
              events,
              "payload-too-long",
              `payload_length ${payloadLength} is more than this server accepts (${limits.maxPayloadBytes} bytes)`,
            );
          state = {
            kind: "data",
            type,
            data: isObject(header.data) ? { ...header.data } : {},
            need: dataLength,
            payload: payloadLength,
          };
        }
        if (state.kind === "data") {
          if (buffer.byteLength < state.need) return { events };
          if (state.need > 0) {
            const extra = parseJson(buffer.subarray(0, state.need));
            if (!isObject(extra))
              return fail(
                events,
                "bad-data",
                `the ${state.need} bytes of data after the "${state.type}" header are not a JSON object (is data_length right?)`,
              );
            Object.assign(state.data, extra);
          }
          buffer = buffer.subarray(state.need);
          const event: ReadEvent = {
            type: state.type,
            data: state.data,
            payloadBytes: state.payload,
          };
          // What is left over is the next event's (or this event's payload).
          input = buffer;
          buffer = new Uint8Array(0);
          state = { kind: "payload", event, left: state.payload };
        }
      }
    },
  };
}
