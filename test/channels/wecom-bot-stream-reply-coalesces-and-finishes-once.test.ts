/**
 * Stream replies: the first finish:false frame goes out on open (before any model
 * text), updates coalesce behind the frame in flight and the throttle, and finish
 * sends exactly one finish:true frame with the full text after the last ack.
 */
import { describe, expect, it } from "vitest";
import {
  createStreamReply,
  STREAM_PLACEHOLDER,
} from "../../src/channels/wecom/bot-stream-reply.ts";
import { silentLogger } from "../../src/system/index.ts";

function harness(throttle: { ms: number; chars: number }) {
  const frames: { content: string; finish: boolean }[] = [];
  const acks: (() => void)[] = [];
  const reply = createStreamReply({
    logger: silentLogger,
    throttleMs: throttle.ms,
    throttleChars: throttle.chars,
    sendFrame(content, finish) {
      frames.push({ content, finish });
      return new Promise<void>((resolve) => acks.push(resolve));
    },
  });
  const ackNext = async () => {
    acks.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { frames, reply, ackNext };
}

describe("WeCom bot stream reply", () => {
  it("sends the placeholder frame on open, before any model text, and nothing empty after it", async () => {
    const { frames, reply, ackNext } = harness({ ms: 0, chars: 1 });
    reply.open();
    expect(frames).toEqual([{ content: STREAM_PLACEHOLDER, finish: false }]);
    await ackNext();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(frames).toHaveLength(1);
  });

  it("coalesces updates while a frame waits for its ack and sends only the latest", async () => {
    const { frames, reply, ackNext } = harness({ ms: 0, chars: 1 });
    reply.open();
    reply.update("Hel");
    reply.update("Hello");
    reply.update("Hello, wor");
    expect(frames).toHaveLength(1);
    await ackNext();
    expect(frames.map((f) => f.content)).toEqual([STREAM_PLACEHOLDER, "Hello, wor"]);
  });

  it("holds small updates until the throttle interval has passed", async () => {
    const { frames, reply, ackNext } = harness({ ms: 150, chars: 1_000 });
    reply.open();
    await ackNext();
    reply.update("a");
    reply.update("ab");
    expect(frames).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(frames.map((f) => f.content)).toEqual([STREAM_PLACEHOLDER, "ab"]);
  });

  it("sends a large update at once when enough characters arrived", async () => {
    const { frames, reply, ackNext } = harness({ ms: 60_000, chars: 10 });
    reply.open();
    await ackNext();
    reply.update("0123456789ABC");
    expect(frames.map((f) => f.content)).toEqual([STREAM_PLACEHOLDER, "0123456789ABC"]);
  });

  it("finishes once with the full text after the frame in flight, and sends nothing after", async () => {
    const { frames, reply, ackNext } = harness({ ms: 0, chars: 1 });
    reply.open();
    reply.update("partial");
    const done = reply.finish("The full, cleaned answer.");
    expect(frames).toHaveLength(1);
    await ackNext();
    expect(frames.at(-1)).toEqual({ content: "The full, cleaned answer.", finish: true });
    await ackNext();
    await done;
    reply.update("late token");
    await reply.finish("again");
    expect(frames.filter((f) => f.finish)).toHaveLength(1);
    expect(frames.map((f) => f.content)).not.toContain("partial");
    expect(frames.map((f) => f.content)).not.toContain("late token");
  });
});
