import { describe, expect, it } from "vitest";
import { cleanOutput } from "./clean-output.ts";
import { createStreamCleaner } from "./stream-cleaner.ts";

const streamed = (chunks: string[]) => {
  const cleaner = createStreamCleaner();
  return chunks.map((c) => cleaner.push(c)).join("") + cleaner.flush();
};

describe("output cleaning", () => {
  it("strips thinking blocks and internal tags", () => {
    expect(cleanOutput("<think>plan</think>Hello <final>world</final>").text).toBe("Hello world");
    expect(cleanOutput("reasoning without opener</think>Answer").text).toBe("Answer");
    expect(cleanOutput("<thinking>never closed").text).toBe("");
  });

  it("recognizes silent tokens; HEARTBEAT_OK only with at most 300 other characters", () => {
    expect(cleanOutput("NO_REPLY")).toEqual({ text: "", silent: true });
    expect(cleanOutput("<think>x</think> NO_REPLY.")).toEqual({ text: "", silent: true });
    expect(cleanOutput("HEARTBEAT_OK nothing new").silent).toBe(true);
    const long = cleanOutput(`HEARTBEAT_OK ${"a".repeat(301)}`);
    expect(long.silent).toBe(false);
    expect(long.text).toHaveLength(301);
    expect(cleanOutput("NO_REPLY is what I would never say").silent).toBe(false);
  });

  it("the stream cleaner hides tags split across deltas and holds back silent replies", () => {
    expect(streamed(["<th", "ink>sec", "ret</thi", "nk>Hi ", "<fin", "al>there</final>"])).toBe(
      "Hi there",
    );
    expect(streamed(["NO_", "REP", "LY"])).toBe("");
    expect(streamed(["NO", "T now"])).toBe("NOT now");
    expect(streamed(["a < b and c > d"])).toBe("a < b and c > d");
  });
});
