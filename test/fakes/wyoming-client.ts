/**
 * A Wyoming client as Home Assistant is one, written from the protocol's sources, not
 * from src/wyoming: OHF-Voice/wyoming `wyoming/event.py` (`async_write_event` puts the
 * event's data in a data block after the header line and names its size in
 * `data_length`; `async_read_event` reads the line, then `data_length` bytes merged over
 * the header's `data`, then `payload_length` bytes) and Home Assistant's use of it
 * (homeassistant/components/wyoming/conversation.py: one connection per turn, a
 * `transcript` with `context` {conversation_id, device_id, satellite_id}, then events
 * are read until `handled`, `not-handled` or `error`). It can also write raw bytes, so
 * tests can send what a well-behaved client never would.
 */
import { connect, type Socket } from "node:net";

export interface ClientEvent {
  type: string;
  data: Record<string, unknown>;
  payload?: Buffer;
}

/** The bytes of an event the way the Python library writes it. */
export function wireEvent(type: string, data?: Record<string, unknown>, payload?: Buffer): Buffer {
  const header: Record<string, unknown> = { type, version: "1.9.0" };
  const body = data && Object.keys(data).length > 0 ? Buffer.from(JSON.stringify(data)) : undefined;
  if (body) header.data_length = body.byteLength;
  if (payload) header.payload_length = payload.byteLength;
  return Buffer.concat([
    Buffer.from(`${JSON.stringify(header)}\n`),
    ...(body ? [body] : []),
    ...(payload ? [payload] : []),
  ]);
}

export interface WyomingClient {
  socket: Socket;
  send(type: string, data?: Record<string, unknown>, payload?: Buffer): void;
  /** Raw bytes, however malformed. */
  write(bytes: Buffer | string): void;
  /** The next event; rejects when the connection closes first (or after `timeoutMs`). */
  next(timeoutMs?: number): Promise<ClientEvent>;
  /** Resolves when the server closes the connection (true) or `timeoutMs` passes (false). */
  closed(timeoutMs?: number): Promise<boolean>;
  close(): void;
}

export function connectWyoming(
  port: number,
  options: { host?: string; localAddress?: string } = {},
): Promise<WyomingClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: options.host ?? "127.0.0.1",
      port,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    let buffer = Buffer.alloc(0);
    const events: ClientEvent[] = [];
    const waiting: (() => void)[] = [];
    let ended = false;
    const wake = () => {
      for (const w of waiting.splice(0)) w();
    };
    const parse = () => {
      for (;;) {
        const newline = buffer.indexOf(0x0a);
        if (newline < 0) return;
        const header = JSON.parse(buffer.subarray(0, newline).toString("utf8")) as {
          type: string;
          data?: Record<string, unknown>;
          data_length?: number;
          payload_length?: number;
        };
        const dataLength = header.data_length ?? 0;
        const payloadLength = header.payload_length ?? 0;
        if (buffer.byteLength < newline + 1 + dataLength + payloadLength) return;
        const data = { ...(header.data ?? {}) };
        let at = newline + 1;
        if (dataLength > 0) {
          Object.assign(data, JSON.parse(buffer.subarray(at, at + dataLength).toString("utf8")));
          at += dataLength;
        }
        const payload = payloadLength > 0 ? buffer.subarray(at, at + payloadLength) : undefined;
        at += payloadLength;
        buffer = buffer.subarray(at);
        events.push({ type: header.type, data, ...(payload ? { payload } : {}) });
      }
    };
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, Buffer.from(chunk)]);
      parse();
      wake();
    });
    const onEnd = () => {
      ended = true;
      wake();
    };
    socket.on("end", onEnd);
    socket.on("close", onEnd);
    socket.on("error", onEnd);
    socket.once("connect", () =>
      resolve({
        socket,
        send: (type, data, payload) => socket.write(wireEvent(type, data, payload)),
        write: (bytes) => socket.write(bytes),
        next(timeoutMs = 30_000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error("no event within the time")), timeoutMs);
            const check = () => {
              const event = events.shift();
              if (event) {
                clearTimeout(timer);
                ok(event);
              } else if (ended) {
                clearTimeout(timer);
                fail(new Error("connection closed"));
              } else waiting.push(check);
            };
            check();
          });
        },
        closed(timeoutMs = 30_000) {
          return new Promise((ok) => {
            const timer = setTimeout(() => ok(false), timeoutMs);
            const check = () => {
              if (ended) {
                clearTimeout(timer);
                ok(true);
              } else waiting.push(check);
            };
            check();
          });
        },
        close: () => socket.destroy(),
      }),
    );
    socket.once("error", (error) => reject(error));
  });
}

/** One Assist turn as HA runs it: connect, send the transcript, read until the answer. */
export async function assistTurn(
  port: number,
  text: string,
  context: { conversation_id: string; device_id?: string; satellite_id?: string },
  language = "en",
): Promise<ClientEvent> {
  const client = await connectWyoming(port);
  try {
    client.send("transcript", { text, language, context });
    for (;;) {
      const event = await client.next(120_000);
      if (["handled", "not-handled", "error"].includes(event.type)) return event;
    }
  } finally {
    client.close();
  }
}
