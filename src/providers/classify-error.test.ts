import { describe, expect, it } from "vitest";
import { AuthProfiles, parseRetryAfter } from "./auth-profiles.ts";
import { classifyHttpError, classifyThrown, isOverflowText } from "./classify-error.ts";
import { failureMessage } from "./failure-message.ts";
import { readSse } from "./sse-reader.ts";
import { normalizeToolSchema } from "./tool-schema.ts";

describe("error classification", () => {
  it.each([
    "request_too_large",
    "This model's maximum context length is 4096 tokens",
    "context length exceeded",
    "prompt is too long: 210000 tokens > 200000 maximum",
    "input exceeds the model's context window",
    "context_window_exceeded",
    "Input is too long for requested model",
    // Ollama's runner and its llama-server runner; vLLM's input processor
    "the input length exceeds the context length",
    "the prompt is longer than the context length currently available to the model; shorten the prompt",
    "The decoder prompt (length 40000) is longer than the maximum model length of 32768.",
    "the request exceeds the available context size, try increasing it",
    "输入上下文过长",
    // DashScope, llama-server's error type, Mistral, Moonshot, Gemini, MiniMax
    "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 30720]",
    "exceed_context_size_error",
    "Prompt contains 40000 tokens, too large for model with 32768 maximum context length",
    "Invalid request: Your request exceeded model token limit: 131072",
    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    "invalid params, context window exceeds limit",
  ])("recognizes overflow wording: %s", (text) => {
    expect(isOverflowText(text)).toBe(true);
    expect(
      classifyHttpError(400, JSON.stringify({ error: { message: text } }), { provider: "p" }).code,
    ).toBe("CONTEXT_OVERFLOW");
  });

  it.each([
    `invalid reasoning value: 'minimal' (must be "high", "medium", "low", or "none")`,
    '"qwen2.5:7b" does not support thinking',
    "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model.",
    "thinking is not supported by this model",
  ])("marks a refused thinking level: %s", (text) => {
    const body = JSON.stringify({ error: { message: text, type: "invalid_request_error" } });
    const error = classifyHttpError(400, body, { provider: "p" });
    expect(error.details?.thinkingLevelRejected).toBe(true);
  });

  it("does not mark other refusals as a thinking-level rejection", () => {
    const error = classifyHttpError(400, "invalid model name", { provider: "p" });
    expect(error.details?.thinkingLevelRejected).toBeUndefined();
  });

  it("checks rate-limit and billing wording before overflow wording", () => {
    expect(isOverflowText("Rate limit reached: too many tokens per minute")).toBe(false);
    expect(
      classifyHttpError(400, "Rate limit reached: too many tokens per minute", { provider: "p" })
        .code,
    ).toBe("PROVIDER_RATE_LIMIT");
    expect(
      classifyHttpError(400, "insufficient_quota: context length exceeded", { provider: "p" }).code,
    ).toBe("PROVIDER_BILLING");
  });

  it.each([
    [401, "PROVIDER_AUTH"],
    [403, "PROVIDER_AUTH"],
    [402, "PROVIDER_BILLING"],
    [429, "PROVIDER_RATE_LIMIT"],
    [504, "PROVIDER_TIMEOUT"],
    [503, "PROVIDER_NETWORK"],
    [529, "PROVIDER_OVERLOADED"],
    [400, "PROVIDER_BAD_RESPONSE"],
  ])("maps HTTP %i to %s", (status, code) => {
    expect(classifyHttpError(status, "{}", { provider: "p" }).code).toBe(code);
  });

  it("keeps keys out of messages", () => {
    const error = classifyHttpError(401, "Incorrect API key provided: my-custom-key-123456", {
      provider: "p",
      secrets: ["my-custom-key-123456"],
    });
    expect(error.message).not.toContain("my-custom-key-123456");
    expect(error.message).toContain("[redacted]");
  });

  it("separates our timeout, the caller's abort and network failures", () => {
    expect(classifyThrown(new Error("aborted"), { provider: "p", timedOut: true }).code).toBe(
      "PROVIDER_TIMEOUT",
    );
    expect(classifyThrown(new Error("aborted"), { provider: "p", aborted: true }).code).toBe(
      "ABORTED",
    );
    expect(
      classifyThrown(new TypeError("fetch failed: ECONNREFUSED"), { provider: "p" }).code,
    ).toBe("PROVIDER_NETWORK");
  });

  it("has a plain-words message for every failure class", () => {
    for (const code of [
      "PROVIDER_AUTH",
      "PROVIDER_RATE_LIMIT",
      "PROVIDER_BILLING",
      "CONTEXT_OVERFLOW",
      "PROVIDER_TIMEOUT",
      "PROVIDER_NETWORK",
      "MODEL_CRASHED",
    ] as const) {
      const text = failureMessage({ code });
      expect(text).not.toMatch(/HTTP|PROVIDER_|[{}]/);
      expect(text.length).toBeGreaterThan(10);
    }
  });
});

describe("auth profiles", () => {
  it("bounds Retry-After and brings a profile back after its cooldown", () => {
    let now = 0;
    const profiles = new AuthProfiles(
      [
        { id: "a", apiKey: "k1" },
        { id: "b", apiKey: "k2" },
      ],
      () => now,
    );
    profiles.coolDown("a", "rateLimit", 3_600_000);
    expect(profiles.available().map((p) => p.id)).toEqual(["b"]);
    expect(profiles.status()[0]?.coolingDownUntil).toBe(600_000);
    now = 600_001;
    expect(profiles.available().map((p) => p.id)).toEqual(["a", "b"]);
    expect(parseRetryAfter("12")).toBe(12_000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
  });
});

describe("SSE reader", () => {
  it("decodes events split across chunks with CRLF endings and multi-line data", async () => {
    const parts = ["event: a\r", "\ndata: one\r\ndata: two\r\n", "\r\n: comment\n\ndata:three\n\n"];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    const events = [];
    for await (const event of readSse(body)) events.push(event);
    expect(events).toEqual([
      { event: "a", data: "one\ntwo" },
      { event: "message", data: "three" },
    ]);
  });
});

describe("tool schema normalization", () => {
  it("drops keywords a dialect rejects but keeps property names that look like keywords", () => {
    const schema = {
      $schema: "s",
      type: "object",
      properties: { format: { type: "string", format: "date" }, mode: { const: "x" } },
      additionalProperties: false,
    };
    expect(normalizeToolSchema(schema, "ollama")).toEqual({
      type: "object",
      properties: { format: { type: "string" }, mode: { enum: ["x"] } },
    });
    expect(normalizeToolSchema(schema, "openai")).toEqual({
      type: "object",
      properties: { format: { type: "string", format: "date" }, mode: { const: "x" } },
      additionalProperties: false,
    });
    expect(normalizeToolSchema({}, "anthropic")).toEqual({ type: "object", properties: {} });
  });
});
