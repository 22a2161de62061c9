/**
 * The Wyoming frame reader (src/wyoming/frame-reader.ts) byte by byte: events split at
 * any point arrive whole, inline data and the data block merge as the Python library
 * merges them, and every bound holds: nothing past the limits is buffered, lying
 * lengths and bad JSON end the stream with a coded error, payloads are counted and dropped.
 */
import { describe, expect, it } from "vitest";
import { createFrameReader } from "../../src/wyoming/frame-reader.ts";
import { wireEvent } from "../fakes/wyoming-client.ts";

const limits = { maxHeaderBytes: 1024, maxDataBytes: 2048, maxPayloadBytes: 4096 };

describe("the Wyoming frame reader", () => {
  it("reads events however the bytes are split, merging the data block over inline data", () => {
    // A data block that is exactly 15 bytes of JSON:
    const exact = Buffer.from('{"text":"blok"}');
    expect(exact.byteLength).toBe(15);
    const stream = Buffer.concat([
      wireEvent("describe"),
      Buffer.from(
        '{"type":"transcript","data":{"text":"inline","language":"de"},"data_length":15}\n',
      ),
      exact,
      wireEvent("audio-chunk", { rate: 16000 }, Buffer.alloc(3000, 1)),
      wireEvent("ping", { text: "x" }),
    ]);
    for (const step of [1, 7, 64, stream.byteLength]) {
      const reader = createFrameReader(limits);
      const events = [];
      for (let at = 0; at < stream.byteLength; at += step) {
        const result = reader.push(stream.subarray(at, at + step));
        expect(result.error).toBeUndefined();
        events.push(...result.events);
        expect(reader.buffered()).toBeLessThanOrEqual(limits.maxHeaderBytes + limits.maxDataBytes);
      }
      expect(events.map((e) => e.type)).toEqual(["describe", "transcript", "audio-chunk", "ping"]);
      expect(events[1]?.data).toEqual({ text: "blok", language: "de" });
      expect(events[2]?.payloadBytes).toBe(3000);
      expect(reader.partial()).toBe(false);
    }
  });

  it("refuses a header line past the limit before it ends, holding no more than one chunk", () => {
    const reader = createFrameReader(limits);
    expect(reader.push(Buffer.from(`{"type":"transcript","data":{"text":"`)).error).toBeUndefined();
    const result = reader.push(Buffer.alloc(2000, 0x61));
    expect(result.error?.code).toBe("header-too-long");
    expect(reader.buffered()).toBe(0);
  });

  it("refuses lengths that claim more than the limits, or are not whole numbers", () => {
    const claim = (header: string) =>
      createFrameReader(limits).push(Buffer.from(`${header}\n`)).error;
    expect(claim('{"type":"transcript","data_length":1073741824}')?.code).toBe("data-too-long");
    expect(claim('{"type":"transcript","data_length":2049}')?.code).toBe("data-too-long");
    expect(claim('{"type":"audio-chunk","payload_length":4097}')?.code).toBe("payload-too-long");
    expect(claim('{"type":"transcript","data_length":1.5}')?.code).toBe("bad-header");
    expect(claim('{"type":"transcript","data_length":"10"}')?.code).toBe("bad-header");
    expect(claim('{"type":"transcript","payload_length":-1}')?.code).toBe("bad-header");
    expect(
      createFrameReader(limits).push(Buffer.from('{"type":"x","data_length":2048}\n')).error,
    ).toBe(undefined);
  });

  it("refuses bad JSON, a header without a type, non-object data and invalid UTF-8", () => {
    const push = (bytes: Buffer | string) =>
      createFrameReader(limits).push(typeof bytes === "string" ? Buffer.from(bytes) : bytes).error
        ?.code;
    expect(push("not json\n")).toBe("bad-header");
    expect(push('["type"]\n')).toBe("bad-header");
    expect(push('{"type":""}\n')).toBe("bad-header");
    expect(push(`{"type":"${"x".repeat(65)}"}\n`)).toBe("bad-header");
    expect(push('{"type":"ping","data":[1]}\n')).toBe("bad-header");
    expect(push('{"type":"ping","data_length":3}\n[1]')).toBe("bad-data");
    expect(push('{"type":"ping","data_length":4}\n{"a"')).toBe("bad-data");
    expect(
      push(
        Buffer.concat([
          Buffer.from('{"type":"ping","data_length":2}\n'),
          Buffer.from([0xff, 0xfe]),
        ]),
      ),
    ).toBe("bad-data");
  });

  it("a length that claims more than arrives leaves the event partial (the server's timer ends it)", () => {
    const reader = createFrameReader(limits);
    const result = reader.push(
      Buffer.from('{"type":"transcript","data_length":100}\n{"text":"hi"}'),
    );
    expect(result).toEqual({ events: [] });
    expect(reader.partial()).toBe(true);
  });
});
