import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anthropicOverloaded,
  anthropicReply,
  type ScriptedServer,
  startFakeAnthropic,
} from "../../../test/fakes/anthropic-server.ts";
import { type CollectedStream, collectStream } from "../../../test/support/collect-stream.ts";
import type { AnthropicProviderConfig } from "../../config/index.ts";
import type { AssistantMessage, Message } from "../../messages/index.ts";
import type { ProviderRequest } from "../provider.ts";
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
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    ...overrides,
  };
}

const tool = {
  name: "write",
  description: "write a file",
  parameters: { type: "object", properties: { path: { type: "string" } } },
};

function assistantCall(id: string, name = "run"): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "toolCall", id, name, arguments: {} }],
    provider: "an",
    model: "claude-fake",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
    stopReason: "toolUse",
    timestamp: 0,
  };
}

function request(messages: Message[], extra: Partial<ProviderRequest> = {}): ProviderRequest {
  return { systemPrompt: "stable part", cacheBoundary: 11, messages, tools: [tool], ...extra };
}

const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });

function run(req: ProviderRequest, sleeps: number[] = []): Promise<CollectedStream> {
  const provider = new AnthropicProvider("an", config(), {
    sleep: async (ms) => void sleeps.push(ms),
  });
  return collectStream(provider, req);
}

const lastBody = () => server.requests.at(-1)?.body ?? {};

describe("Anthropic provider against the real API's rules", () => {
  it("sends a placeholder for an empty tool output, which the API accepts", async () => {
    const result = await run(
      request([
        user("run it"),
        assistantCall("toolu_1"),
        {
          role: "toolResult",
          toolCallId: "toolu_1",
          toolName: "run",
          content: [{ type: "text", text: "" }],
          isError: false,
          timestamp: 0,
        },
      ]),
    );
    expect(result.final.type).toBe("done");
    const messages = lastBody().messages as { content: Record<string, unknown>[] }[];
    expect(messages[2]?.content[0]).toMatchObject({
      type: "tool_result",
      content: [{ type: "text", text: "(no output)" }],
    });
  });

  it("keeps only text in an error tool result that carried an image", async () => {
    const result = await run(
      request([
        user("snap"),
        assistantCall("toolu_2", "camera"),
        {
          role: "toolResult",
          toolCallId: "toolu_2",
          toolName: "camera",
          content: [
            { type: "text", text: "camera offline" },
            { type: "image", data: "aGVsbG8=", mimeType: "image/jpeg" },
          ],
          isError: true,
          timestamp: 0,
        },
      ]),
    );
    expect(result.final.type).toBe("done");
    const messages = lastBody().messages as { content: { content: { type: string }[] }[] }[];
    expect(messages[2]?.content[0]?.content.map((b) => b.type)).toEqual(["text", "text"]);
  });

  it("leaves thinking off when the tool choice is forced", async () => {
    const result = await run(
      request([user("note it")], { toolChoice: "required", thinkingLevel: "high" }),
    );
    expect(result.final.type).toBe("done");
    expect(lastBody().tool_choice).toEqual({ type: "any" });
    expect(lastBody().thinking).toBeUndefined();
    await run(request([user("think")], { thinkingLevel: "high" }));
    expect(lastBody().thinking).toEqual({ type: "enabled", budget_tokens: 16384 });
  });

  it("keeps redacted thinking and replays it unchanged", async () => {
    server.enqueue(
      anthropicReply([
        { type: "redacted_thinking", data: "EnCrYpTeD==" },
        { type: "text", text: "done" },
      ]),
    );
    const first = await run(request([user("hi")], { thinkingLevel: "low" }));
    const assistant = first.final.message;
    expect(assistant.content[0]).toEqual({
      type: "thinking",
      thinking: "",
      signature: "EnCrYpTeD==",
      redacted: true,
    });
    await run(request([user("hi"), assistant, user("again")], { thinkingLevel: "low" }));
    const messages = lastBody().messages as { content: Record<string, unknown>[] }[];
    expect(messages[1]?.content[0]).toEqual({ type: "redacted_thinking", data: "EnCrYpTeD==" });
  });

  it("puts cache breakpoints on the system prompt, where the previous request ended and on the newest user turn", async () => {
    const toolResult: Message = {
      role: "toolResult",
      toolCallId: "toolu_3",
      toolName: "run",
      content: [{ type: "text", text: "done" }],
      isError: false,
      timestamp: 0,
    };
    const earlier = [user("first"), assistantCall("toolu_2"), user("second")];
    await run(request(earlier));
    const before = lastBody().messages as { content: Record<string, unknown>[] }[];
    await run(request([...earlier, assistantCall("toolu_3"), toolResult]));
    const body = lastBody();
    const system = body.system as Record<string, unknown>[];
    expect(system[0]?.cache_control).toEqual({ type: "ephemeral" });
    const messages = body.messages as { content: Record<string, unknown>[] }[];
    const marked = messages.flatMap((m, i) =>
      m.content.flatMap((block, j) => (block.cache_control ? [`${i}.${j}`] : [])),
    );
    // "second" ended the previous request, which wrote the cache there: this one reads it.
    expect(marked).toEqual(["2.0", "4.0"]);
    expect(before.at(-1)?.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    // Markers are not content: the history up to there is the same bytes as before.
    const content = (list: typeof messages) =>
      JSON.stringify(list, (key, value) => (key === "cache_control" ? undefined : value));
    expect(content(messages.slice(0, 3))).toBe(content(before));
  });

  it("retries 529 overloaded on the same key without cooling it down", async () => {
    const sleeps: number[] = [];
    const before = server.requests.length;
    server.enqueue(anthropicOverloaded({ "retry-after": "4" }));
    const provider = new AnthropicProvider("an", config(), {
      sleep: async (ms) => void sleeps.push(ms),
    });
    const { final } = await collectStream(provider, request([user("hi")]));
    expect(final.type).toBe("done");
    expect(server.requests.slice(before).map((r) => r.headers["x-api-key"])).toEqual([
      "ant-key-one-0000",
      "ant-key-one-0000",
    ]);
    expect(sleeps).toEqual([4000]);
    expect(provider.stats().authProfiles).toEqual([{ id: "first" }, { id: "second" }]);
  });

  it("keeps a tool call cut by max_tokens as a truncated call of a length stop", async () => {
    server.enqueue(
      anthropicReply(
        [
          { type: "text", text: "Writing it." },
          { type: "tool_use", id: "toolu_cut", name: "write", rawInput: '{"path": "a very lo' },
        ],
        { stopReason: "max_tokens" },
      ),
    );
    const { final } = await run(request([user("write")]));
    expect(final.type).toBe("done");
    expect(final.message.stopReason).toBe("length");
    expect(final.message.content).toEqual([
      { type: "text", text: "Writing it." },
      { type: "toolCall", id: "toolu_cut", name: "write", arguments: {}, truncated: true },
    ]);
  });

  it.each([
    ["refusal", "PROVIDER_STOPPED"],
    ["pause_turn", "PROVIDER_STOPPED"],
    ["model_context_window_exceeded", "CONTEXT_OVERFLOW"],
  ])("reports stop_reason %s distinctly (%s)", async (stopReason, code) => {
    server.enqueue(anthropicReply([{ type: "text", text: "partial" }], { stopReason }));
    const result = await run(request([user("x")]));
    expect(result.final.type === "error" && result.final.error.code).toBe(code);
    expect(result.final.type === "error" && result.final.error.details?.stopReason).toBe(
      stopReason,
    );
    expect(result.final.message.content).toEqual([{ type: "text", text: "partial" }]);
  });
});
