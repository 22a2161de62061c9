import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anthropicOverflow,
  anthropicReply,
  anthropicStatus,
  hang,
  type ScriptedServer,
  startFakeAnthropic,
} from "../../../test/fakes/anthropic-server.ts";
import { type CollectedStream, collectStream } from "../../../test/support/collect-stream.ts";
import type { AnthropicProviderConfig } from "../../config/index.ts";
import type { Message } from "../../messages/index.ts";
import type { Provider, ProviderRequest } from "../provider.ts";
import { AnthropicProvider } from "./anthropic-provider.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(() => server.close());

function config(overrides: Partial<AnthropicProviderConfig> = {}): AnthropicProviderConfig {
  return {
    kind: "anthropic",
    baseUrl: server.url,
    model: "claude-fake",
    authProfiles: [
      { id: "first", apiKey: "ant-key-one-0000" },
      { id: "second", apiKey: "ant-key-two-0000" },
    ],
    contextWindow: 200000,
    maxTokens: 1024,
    timeoutMs: 2000,
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    ...overrides,
  };
}

const stable = "You are the home assistant. Rules: be brief.\n";
const request: ProviderRequest = {
  systemPrompt: `${stable}Time: 12:00`,
  cacheBoundary: stable.length,
  messages: [{ role: "user", content: "hi", timestamp: 0 }],
  tools: [],
};

function collect(provider: Provider, req: ProviderRequest = request): Promise<CollectedStream> {
  return collectStream(provider, req);
}

describe("Anthropic provider against a fake SSE server", () => {
  it("splits the system prompt at the cache boundary and reports cache usage and cost", async () => {
    server.enqueue(
      anthropicReply([{ type: "text", text: "Hello there" }], {
        usage: { input: 50, output: 7, cacheRead: 900, cacheWrite: 100 },
      }),
    );
    const { events, final } = await collect(new AnthropicProvider("an", config()));
    const sent = server.requests.at(-1);
    expect(sent?.path).toBe("/v1/messages");
    expect(sent?.headers["x-api-key"]).toBe("ant-key-one-0000");
    expect(sent?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent?.body.system).toEqual([
      { type: "text", text: stable, cache_control: { type: "ephemeral" } },
      { type: "text", text: "Time: 12:00" },
    ]);
    expect(events.filter((e) => e.type === "text_delta").length).toBe(2);
    expect(final.type).toBe("done");
    expect(final.message.content).toEqual([{ type: "text", text: "Hello there" }]);
    expect(final.message.usage).toMatchObject({
      input: 50,
      output: 7,
      cacheRead: 900,
      cacheWrite: 100,
      totalTokens: 1057,
    });
    expect(final.message.usage.cost?.total).toBeCloseTo(
      (50 * 3 + 7 * 15 + 900 * 0.3 + 100 * 3.75) / 1e6,
      12,
    );
  });

  it("maps thinking and tool_use blocks, assembling input_json_delta", async () => {
    server.enqueue(
      anthropicReply([
        { type: "thinking", thinking: "Need the weather.", signature: "sig123" },
        { type: "text", text: "Checking." },
        {
          type: "tool_use",
          id: "toolu_01",
          name: "get_weather",
          rawInput: '{"city":"Oslo","units":"c"}',
        },
      ]),
    );
    const { events, final } = await collect(new AnthropicProvider("an", config()), {
      ...request,
      tools: [
        {
          name: "get_weather",
          description: "w",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      ],
      thinkingLevel: "low",
    });
    expect(final.message.stopReason).toBe("toolUse");
    expect(final.message.content).toEqual([
      { type: "thinking", thinking: "Need the weather.", signature: "sig123" },
      { type: "text", text: "Checking." },
      {
        type: "toolCall",
        id: "toolu_01",
        name: "get_weather",
        arguments: { city: "Oslo", units: "c" },
      },
    ]);
    expect(events.some((e) => e.type === "thinking_delta")).toBe(true);
    const body = server.requests.at(-1)?.body;
    expect(body?.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body?.tools).toEqual([
      {
        name: "get_weather",
        description: "w",
        input_schema: { type: "object", properties: { city: { type: "string" } } },
      },
    ]);
  });

  it("sends tool results as tool_result blocks in one user turn with API-safe ids", async () => {
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
    const messages: Message[] = [
      { role: "user", content: "lights?", timestamp: 0 },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "unsigned, dropped" },
          { type: "toolCall", id: "call.1", name: "a", arguments: {} },
          { type: "toolCall", id: "call_2", name: "b", arguments: { x: 1 } },
        ],
        provider: "oa",
        model: "m",
        usage,
        stopReason: "toolUse",
        timestamp: 0,
      },
      {
        role: "toolResult",
        toolCallId: "call.1",
        toolName: "a",
        content: [{ type: "text", text: "on" }],
        isError: false,
        timestamp: 0,
      },
      {
        role: "toolResult",
        toolCallId: "call_2",
        toolName: "b",
        content: [{ type: "text", text: "boom" }],
        isError: true,
        timestamp: 0,
      },
    ];
    await collect(new AnthropicProvider("an", config()), { ...request, messages });
    expect(server.requests.at(-1)?.body.messages).toEqual([
      {
        role: "user",
        content: [{ type: "text", text: "lights?", cache_control: { type: "ephemeral" } }],
      },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "call_1", name: "a", input: {} },
          { type: "tool_use", id: "call_2", name: "b", input: { x: 1 } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_1",
            content: [{ type: "text", text: "on" }],
            is_error: false,
          },
          {
            type: "tool_result",
            tool_use_id: "call_2",
            content: [{ type: "text", text: "boom" }],
            is_error: true,
            cache_control: { type: "ephemeral" },
          },
        ],
      },
    ]);
  });

  it("rotates on 429 and on 401 within the same request", async () => {
    const provider = new AnthropicProvider("an", config());
    server.enqueue(
      anthropicStatus(429, "rate_limit_error", "Number of requests has exceeded your rate limit", {
        "retry-after": "3",
      }),
    );
    const first = await collect(provider);
    expect(first.final.type).toBe("done");
    expect(server.requests.at(-1)?.headers["x-api-key"]).toBe("ant-key-two-0000");
    server.onKey(
      "ant-key-bad-0000",
      anthropicStatus(401, "authentication_error", "invalid x-api-key"),
    );
    const rotated = new AnthropicProvider(
      "an",
      config({
        authProfiles: [
          { id: "bad", apiKey: "ant-key-bad-0000" },
          { id: "good", apiKey: "ant-key-two-0000" },
        ],
      }),
    );
    const second = await collect(rotated);
    expect(second.final.type).toBe("done");
    expect(rotated.stats().authProfiles?.[0]?.coolingDownUntil).toBeGreaterThan(Date.now());
  });

  it.each([
    ["overflow", anthropicOverflow(), "CONTEXT_OVERFLOW"],
    ["500", anthropicStatus(500, "api_error", "Internal server error"), "PROVIDER_NETWORK"],
    [
      "billing",
      anthropicStatus(
        400,
        "invalid_request_error",
        "Your credit balance is too low to access the Anthropic API",
      ),
      "PROVIDER_BILLING",
    ],
    ["hang", hang, "PROVIDER_TIMEOUT"],
    [
      "dropped stream",
      anthropicReply([{ type: "text", text: "a b c d e f" }], { dropAfter: 5 }),
      "PROVIDER_NETWORK",
    ],
    [
      "malformed tool input",
      anthropicReply([{ type: "tool_use", id: "toolu_9", name: "x", rawInput: '{"a": tru' }]),
      "PROVIDER_BAD_RESPONSE",
    ],
    [
      "overloaded error event",
      anthropicReply([{ type: "text", text: "partial" }], {
        errorAfter: { type: "overloaded_error", message: "Overloaded" },
      }),
      "PROVIDER_OVERLOADED",
    ],
  ])("classifies %s", async (_name, step, code) => {
    server.enqueue(step);
    const provider = new AnthropicProvider(
      "an",
      config({ authProfiles: [{ id: "only", apiKey: "ant-key-one-0000" }], timeoutMs: 300 }),
    );
    const { final } = await collect(provider);
    expect(final.type === "error" && final.error.code).toBe(code);
    expect(final.message.stopReason).toBe("error");
    expect(final.message.content.some((b) => b.type === "toolCall")).toBe(false);
  });
});
