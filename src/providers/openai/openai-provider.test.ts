import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hang,
  openaiOverflow,
  openaiStatus,
  openaiText,
  openaiToolCall,
  type ScriptedServer,
  startFakeOpenAI,
} from "../../../test/fakes/openai-server.ts";
import { type CollectedStream, collectStream } from "../../../test/support/collect-stream.ts";
import type { OpenAIProviderConfig } from "../../config/index.ts";
import { createLogger } from "../../system/index.ts";
import type { Provider, ProviderRequest } from "../provider.ts";
import { OpenAIProvider } from "./openai-provider.ts";

const SECRET = "sk-secretkey-abcdef123456";
let server: ScriptedServer;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());

function config(overrides: Partial<OpenAIProviderConfig> = {}): OpenAIProviderConfig {
  return {
    kind: "openai",
    baseUrl: `${server.url}/v1`,
    model: "gpt-fake",
    authProfiles: [
      { id: "first", apiKey: "key-one-000000" },
      { id: "second", apiKey: "key-two-000000" },
    ],
    contextWindow: 8192,
    maxTokens: 256,
    timeoutMs: 2000,
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    ...overrides,
  };
}

const request: ProviderRequest = {
  systemPrompt: "You are helpful.",
  messages: [{ role: "user", content: "hi", timestamp: 0 }],
  tools: [],
};

function collect(provider: Provider, req: ProviderRequest = request): Promise<CollectedStream> {
  return collectStream(provider, req);
}

function lastAuth(): string | undefined {
  return server.requests.at(-1)?.headers.authorization;
}

describe("OpenAI-compatible provider against a fake SSE server", () => {
  it("streams text and reports usage with cached tokens as cacheRead and cost", async () => {
    server.enqueue(
      openaiText("Hello there friend", { usage: { prompt: 1000, completion: 100, cached: 400 } }),
    );
    const { events, final } = await collect(new OpenAIProvider("oa", config()));
    expect(
      events
        .filter((e) => e.type === "text_delta")
        .map((e) => (e.type === "text_delta" ? e.delta : "")),
    ).toEqual(["Hello ", "there ", "friend"]);
    expect(final.type).toBe("done");
    expect(final.message.usage).toMatchObject({
      input: 600,
      cacheRead: 400,
      output: 100,
      totalTokens: 1100,
    });
    expect(final.message.usage.cost?.total).toBeCloseTo((600 * 2 + 100 * 8 + 400 * 0.5) / 1e6, 12);
    const body = server.requests.at(-1)?.body;
    expect(body?.stream_options).toEqual({ include_usage: true });
    expect(server.requests.at(-1)?.path).toBe("/v1/chat/completions");
  });

  it("assembles a tool call from argument deltas and sends normalized tool schemas", async () => {
    server.enqueue(openaiToolCall("get_weather", '{"city":"Paris","days":2}'));
    const provider = new OpenAIProvider(
      "oa",
      config({ baseUrl: `${server.url}/compatible-mode/v1`, flavor: "qwen" }),
    );
    const { events, final } = await collect(provider, {
      ...request,
      tools: [
        {
          name: "get_weather",
          description: "w",
          parameters: {
            $schema: "x",
            type: "object",
            properties: { city: { type: "string", format: "city", const: "Paris" } },
          },
        },
      ],
    });
    expect(final.message.stopReason).toBe("toolUse");
    expect(final.message.content).toEqual([
      {
        type: "toolCall",
        id: "call_fake1",
        name: "get_weather",
        arguments: { city: "Paris", days: 2 },
      },
    ]);
    expect(events.some((e) => e.type === "toolcall")).toBe(true);
    const tools = server.requests.at(-1)?.body.tools as {
      function: { parameters: Record<string, unknown> };
    }[];
    expect(tools[0]?.function.parameters).toEqual({
      type: "object",
      properties: { city: { type: "string", enum: ["Paris"] } },
    });
  });

  it("maps history: tool calls with JSON-string arguments and tool results as tool messages", async () => {
    await collect(new OpenAIProvider("oa", config()), {
      ...request,
      messages: [
        { role: "user", content: "weather?", timestamp: 0 },
        {
          role: "assistant",
          content: [{ type: "toolCall", id: "c1", name: "w", arguments: { a: 1 } }],
          provider: "oa",
          model: "m",
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
          stopReason: "toolUse",
          timestamp: 0,
        },
        {
          role: "toolResult",
          toolCallId: "c1",
          toolName: "w",
          content: [{ type: "text", text: "sunny" }],
          isError: false,
          timestamp: 0,
        },
      ],
    });
    const messages = server.requests.at(-1)?.body.messages as Record<string, unknown>[];
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(messages[2]?.tool_calls).toEqual([
      { id: "c1", type: "function", function: { name: "w", arguments: '{"a":1}' } },
    ]);
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: "c1", content: "sunny" });
  });

  it("rotates to the next key on 429, honouring Retry-After for the cooldown", async () => {
    let now = 1_000_000;
    const provider = new OpenAIProvider("oa", config(), { now: () => now });
    server.enqueue(
      openaiStatus(429, "Rate limit reached", { headers: { "retry-after": "7" } }),
      openaiText("recovered"),
    );
    const { final } = await collect(provider);
    expect(final.type).toBe("done");
    expect(lastAuth()).toBe("Bearer key-two-000000");
    expect(provider.stats().authProfiles).toEqual([
      { id: "first", coolingDownUntil: now + 7000 },
      { id: "second" },
    ]);
    server.enqueue(openaiText("again"));
    await collect(provider);
    expect(lastAuth()).toBe("Bearer key-two-000000");
    now += 7001;
    server.enqueue(openaiText("back"));
    await collect(provider);
    expect(lastAuth()).toBe("Bearer key-one-000000");
  });

  it("rotates past a key that gets 401 and never shows the key in errors or logs", async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "debug", write: (line) => lines.push(line) });
    server.onKey(
      SECRET,
      openaiStatus(401, `Incorrect API key provided: ${SECRET}`, { type: "invalid_api_key" }),
    );
    const provider = new OpenAIProvider(
      "oa",
      config({
        authProfiles: [
          { id: "bad", apiKey: SECRET },
          { id: "good", apiKey: "key-two-000000" },
        ],
      }),
      { logger },
    );
    const ok = await collect(provider);
    expect(ok.final.type).toBe("done");
    const onlyBad = new OpenAIProvider(
      "oa",
      config({ authProfiles: [{ id: "bad", apiKey: SECRET }] }),
      { logger },
    );
    const failed = await collect(onlyBad);
    expect(failed.final.type === "error" && failed.final.error.code).toBe("PROVIDER_AUTH");
    expect(failed.final.message.errorMessage).not.toContain(SECRET);
    expect(lines.join("\n")).not.toContain(SECRET);
    expect(lines.join("\n")).toContain("cooling down");
  });

  it("fails with PROVIDER_RATE_LIMIT when the only key is rate limited, then without calling the server", async () => {
    const provider = new OpenAIProvider(
      "oa",
      config({ authProfiles: [{ id: "only", apiKey: "key-one-000000" }] }),
    );
    server.enqueue(openaiStatus(429, "Too many requests", { headers: { "retry-after": "30" } }));
    const first = await collect(provider);
    expect(first.final.type === "error" && first.final.error.code).toBe("PROVIDER_RATE_LIMIT");
    expect(first.final.type === "error" && first.final.error.details?.retryAfterMs).toBe(30000);
    const count = server.requests.length;
    const second = await collect(provider);
    expect(second.final.type === "error" && second.final.error.code).toBe("PROVIDER_RATE_LIMIT");
    expect(second.final.message.errorMessage).toContain("cooling down");
    expect(server.requests.length).toBe(count);
  });

  it.each([
    [
      "500 server error",
      openaiStatus(500, "internal error", { type: "server_error" }),
      "PROVIDER_NETWORK",
    ],
    ["overflow body", openaiOverflow(), "CONTEXT_OVERFLOW"],
    [
      "402 billing",
      openaiStatus(402, "You exceeded your current quota", { type: "insufficient_quota" }),
      "PROVIDER_BILLING",
    ],
    ["hang", hang, "PROVIDER_TIMEOUT"],
    [
      "connection dropped mid-stream",
      openaiText("one two three four", { dropAfter: 3 }),
      "PROVIDER_NETWORK",
    ],
    [
      "malformed tool arguments",
      openaiToolCall("get_weather", '{"city": "Par'),
      "PROVIDER_BAD_RESPONSE",
    ],
    [
      "error object in the stream",
      {
        kind: "events" as const,
        events: [{ data: { error: { message: "Rate limit exceeded", type: "rate_limit_error" } } }],
      },
      "PROVIDER_RATE_LIMIT",
    ],
  ])("classifies %s", async (_name, step, code) => {
    server.enqueue(step);
    const provider = new OpenAIProvider(
      "oa",
      config({ authProfiles: [{ id: "only", apiKey: "key-one-000000" }], timeoutMs: 300 }),
    );
    const { final } = await collect(provider);
    expect(final.type).toBe("error");
    expect(final.type === "error" && final.error.code).toBe(code);
    expect(final.message.stopReason).toBe("error");
    expect(final.message.content.some((b) => b.type === "toolCall")).toBe(false);
    expect(provider.stats().errors).toBe(1);
  });

  it("keeps the text received before a dropped connection", async () => {
    server.enqueue(openaiText("alpha beta gamma delta", { dropAfter: 3 }));
    const { final } = await collect(new OpenAIProvider("oa", config()));
    expect(final.message.content).toEqual([{ type: "text", text: "alpha beta " }]);
  });

  it("ends with stopReason aborted when the caller aborts", async () => {
    server.enqueue(hang);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { final } = await collect(new OpenAIProvider("oa", config()), {
      ...request,
      signal: controller.signal,
    });
    expect(final.type === "error" && final.error.code).toBe("ABORTED");
    expect(final.message.stopReason).toBe("aborted");
  });
});
