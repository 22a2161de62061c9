import { describe, expect, it } from "vitest";
import { estimateTextTokens } from "./estimate-tokens.ts";
import { isContextOverflowMessage } from "./index.ts";
import { createTokenCounter } from "./token-counter.ts";

describe("token accounting", () => {
  it("counts Chinese far above chars/4 and applies the 1.2 margin only to estimates", async () => {
    const zh = "请帮我打开客厅的灯，然后把空调调到二十六度。";
    expect(estimateTextTokens(zh)).toBeGreaterThan(zh.length);
    const estimating = await createTokenCounter();
    expect(estimating.exact).toBe(false);
    expect(await estimating.count(zh)).toBe(Math.ceil(estimateTextTokens(zh) * 1.2));
    const exact = await createTokenCounter({ countTokens: async (t) => t.length });
    expect(exact.exact).toBe(true);
    expect(await exact.count("abcd")).toBe(4);
    const image = await estimating.countMessage({
      role: "user",
      content: [{ type: "image", data: "", mimeType: "image/png" }],
      timestamp: 0,
    });
    expect(image).toBeGreaterThanOrEqual(1200);
  });

  it("counts a repeated prompt part once, but retries an exact count that failed", async () => {
    const asked: string[] = [];
    let tokenizerReady = false;
    const counter = await createTokenCounter({
      countTokens: async (text) => {
        asked.push(text);
        return text === "probe" || tokenizerReady ? text.length : undefined;
      },
    });
    const system = "You are the home assistant of this house.".repeat(20);
    // The tokenizer is not ready: an estimate, not kept.
    expect(await counter.count(system)).toBe(Math.ceil(estimateTextTokens(system) * 1.2));
    tokenizerReady = true;
    expect(await counter.count(system)).toBe(system.length);
    expect(await counter.count(system)).toBe(system.length);
    expect(asked.filter((t) => t === system)).toHaveLength(2);
  });

  it("recognizes overflow errors but not rate limits", () => {
    for (const m of [
      "request_too_large",
      "This model's maximum context length is 8192 tokens",
      "prompt is too long: 210000 tokens",
      "the request exceeds the available context size",
      "上下文过长",
      "context_window_exceeded",
    ]) {
      expect(isContextOverflowMessage(m)).toBe(true);
    }
    expect(isContextOverflowMessage("429 rate limit: too many tokens per minute")).toBe(false);
    expect(isContextOverflowMessage("billing: insufficient balance")).toBe(false);
  });
});
