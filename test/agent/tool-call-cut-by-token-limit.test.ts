import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OpenAIProvider } from "../../src/providers/openai/openai-provider.ts";
import { lengthCutToolCall } from "../fakes/openai-compatible-quirks.ts";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { createHarness, expectRepaired, type Harness, ownerRequest } from "./agent-harness.ts";

let server: ScriptedServer;
let harness: Harness | undefined;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("a tool call cut by the output-token limit", () => {
  it("is answered with an error telling the model it ran out of tokens, and the turn goes on", async () => {
    const cloud = new OpenAIProvider("cloud", {
      kind: "openai",
      baseUrl: `${server.url}/v1`,
      model: "lan-model",
      authProfiles: [],
      contextWindow: 8192,
      maxTokens: 64,
      timeoutMs: 2000,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
    harness = createHarness({
      providers: { cloud },
      config: { models: { primary: "cloud", fallbacks: [], providers: {} } },
    });
    server.enqueue(
      lengthCutToolCall("write", '{"path":"story.md","content":"Once upon a ti', "Writing it."),
      openaiText("I will write it in two parts."),
    );
    const before = server.requests.length;
    const result = await harness.agent.chat(ownerRequest("write me a long story"));

    expect(result.error).toBeUndefined();
    expect(result.reply).toBe("I will write it in two parts.");
    const messages = harness.messages(result.sessionKey);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const cut = messages[1];
    expect(cut?.role === "assistant" && cut.stopReason).toBe("length");
    expect(cut?.role === "assistant" && cut.content[0]).toEqual({
      type: "text",
      text: "Writing it.",
    });
    const toolResult = messages[2];
    expect(toolResult?.role === "toolResult" && toolResult.isError).toBe(true);
    const text = toolResult?.role === "toolResult" ? JSON.stringify(toolResult.content) : "";
    expect(text).toMatch(/output token limit/);
    expectRepaired(messages);
    // No fallback, no retry of the same request: exactly two model calls.
    expect(server.requests.length - before).toBe(2);
  });
});
