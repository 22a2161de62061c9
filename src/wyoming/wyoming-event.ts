/**
 * One Wyoming event and how it is written (OHF-Voice/wyoming `wyoming/event.py`
 * `async_write_event`): a JSON header line with `type`, `version` and, when there is
 * data, `data_length`, then exactly that many bytes of UTF-8 JSON. Like the Python
 * writer, data never goes inline in the header: Home Assistant's reader refuses a
 * header line over 64 KiB, so a long reply must travel in the data block.
 */

/** The protocol version this server speaks (the wyoming package whose events it follows). */
export const WYOMING_VERSION = "1.9.0";

export interface WyomingEvent {
  type: string;
  data: Record<string, unknown>;
}

const encoder = new TextEncoder();

/** The bytes of `event` on the wire. */
export function encodeEvent(event: WyomingEvent): Uint8Array {
  const hasData = Object.keys(event.data).length > 0;
  const data = hasData ? encoder.encode(JSON.stringify(event.data)) : undefined;
  const header: Record<string, unknown> = { type: event.type, version: WYOMING_VERSION };
  if (data) header.data_length = data.byteLength;
  const line = encoder.encode(`${JSON.stringify(header)}\n`);
  if (!data) return line;
  const out = new Uint8Array(line.byteLength + data.byteLength);
  out.set(line, 0);
  out.set(data, line.byteLength);
  return out;
}

/**
 * An `error` event (`wyoming/error.py Error`: `text`, optional `code`). Home Assistant
 * shows "Error from Wyoming service: <text> (code: <code>)".
 */
export function errorEvent(code: string, text: string): WyomingEvent {
  return { type: "error", data: { text, code } };
}
