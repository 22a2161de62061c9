import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/messages/index.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import type { TestContextEngine } from "../fakes/test-context-engine.ts";
import { createHarness, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const request = ownerRequest;

/** Every tool call on the branch has exactly one result, and the last message is an assistant message. */
function expectRepaired(messages: Message[]): void {
  const calls = messages.flatMap((m) =>
    m.role === "assistant" ? m.content.filter((b) => b.type === "toolCall").map((b) => b.id) : [],
  );
  const results = messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []));
  expect(results.sort()).toEqual(calls.sort());
  expect(messages.at(-1)?.role).toBe("assistant");
}

const models = (primary: string, fallbacks: string[]) => ({
  models: { primary, fallbacks, providers: {} },
});

describe("outer loop", () => {
  it("overflow → compact → retry succeeds", async () => {
    const fake = createFakeProvider({
      script: [
        { error: { code: "CONTEXT_OVERFLOW", message: "prompt is too long" } },
        { error: { code: "CONTEXT_OVERFLOW", message: "prompt is too long" } },
        { text: "fits now" },
      ],
    });
    harness = createHarness({ providers: { fake } });
    const result = await harness.agent.chat(request("long story"));
    expect(result).toMatchObject({ reply: "fits now" });
    expect(result.error).toBeUndefined();
    const engine = harness.engine as TestContextEngine;
    expect(engine.compactions.map((c) => c.reason)).toEqual(["overflow", "overflow"]);
    expect(harness.store.sessions.byKey(result.sessionKey)?.compactionCount).toBe(2);
    expectRepaired(harness.messages(result.sessionKey));
  });

  it("overflow after 3 compactions tells the user in plain words and stores an error message", async () => {
    const fake = createFakeProvider({
      script: () => ({ error: { code: "CONTEXT_OVERFLOW", message: "context length exceeded" } }),
    });
    harness = createHarness({ providers: { fake } });
    const result = await harness.agent.chat(request("x"));
    expect(result.error?.code).toBe("CONTEXT_OVERFLOW");
    expect(result.reply).toMatch(/too long for the model/);
    expect((harness.engine as TestContextEngine).compactions).toHaveLength(3);
    const messages = harness.messages(result.sessionKey);
    const last = messages.at(-1);
    expect(last?.role === "assistant" && last.stopReason).toBe("error");
    expect(last?.role === "assistant" && last.errorMessage).toBe("context length exceeded");
    expectRepaired(messages);
  });

  it("falls back to the next model on auth, rate limit, network and crash errors", async () => {
    for (const code of [
      "PROVIDER_AUTH",
      "PROVIDER_RATE_LIMIT",
      "PROVIDER_NETWORK",
      "MODEL_CRASHED",
    ] as const) {
      const cloud = createFakeProvider({
        id: "cloud",
        script: [{ text: "partial", error: { code, message: `boom ${code}` } }],
      });
      const local = createFakeProvider({
        id: "local",
        model: "tiny",
        kind: "local",
        script: [{ text: "answer from local" }],
      });
      harness = createHarness({ providers: { cloud, local }, config: models("cloud", ["local"]) });
      const result = await harness.agent.chat(request("hi"));
      expect(result.reply).toBe("answer from local");
      expect(harness.store.sessions.byKey(result.sessionKey)?.model).toBe("local/tiny");
      const stored = harness.messages(result.sessionKey);
      expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
      await harness.close();
      harness = undefined;
    }
  });

  it("every class of final failure gets its own plain message", async () => {
    const expected: Record<string, RegExp> = {
      PROVIDER_AUTH: /did not accept its access key/,
      PROVIDER_RATE_LIMIT: /too many requests/,
      PROVIDER_BILLING: /credit or quota/,
      PROVIDER_TIMEOUT: /too long to answer/,
      PROVIDER_NETWORK: /Could not reach/,
      MODEL_CRASHED: /stopped unexpectedly/,
    };
    for (const [code, words] of Object.entries(expected)) {
      const fake = createFakeProvider({
        script: () => ({
          error: { code: code as "PROVIDER_AUTH", message: `raw ${code} sk-abcdefghijklmnop` },
        }),
      });
      harness = createHarness({ providers: { fake } });
      const result = await harness.agent.chat(request("hi"));
      expect(result.error?.code).toBe(code);
      expect(result.reply).toMatch(words);
      expect(result.reply).not.toContain("sk-");
      expectRepaired(harness.messages(result.sessionKey));
      await harness.close();
      harness = undefined;
    }
  });

  it("timeout with a context over 65% full compacts and retries; below 65% it does not", async () => {
    const big = "word ".repeat(3000);
    const full = createFakeProvider({
      contextWindow: 4096,
      script: [
        { error: { code: "PROVIDER_TIMEOUT", message: "timed out" } },
        { text: "after compaction" },
      ],
    });
    harness = createHarness({ providers: { fake: full } });
    const result = await harness.agent.chat(request(big));
    expect(result.reply).toBe("after compaction");
    expect((harness.engine as TestContextEngine).compactions.map((c) => c.reason)).toEqual([
      "timeout",
    ]);
    await harness.close();

    const roomy = createFakeProvider({
      contextWindow: 100000,
      script: [{ error: { code: "PROVIDER_TIMEOUT", message: "timed out" } }, { text: "never" }],
    });
    harness = createHarness({ providers: { fake: roomy } });
    const second = await harness.agent.chat(request("short"));
    expect(second.error?.code).toBe("PROVIDER_TIMEOUT");
    expect((harness.engine as TestContextEngine).compactions).toHaveLength(0);
  });

  it("a timeout with a context 65% full of Chinese text compacts (the CJK-aware estimate counts it)", async () => {
    // 2000 Han characters are ~3500 tokens by the context area's estimator (1.45 x 1.2
    // each), over 65% of 4096; a chars/3.5 rule sees 571 and would never compact.
    const chinese = "我们今天去公园散步看花".repeat(200);
    const fake = createFakeProvider({
      contextWindow: 4096,
      script: [
        { error: { code: "PROVIDER_TIMEOUT", message: "timed out" } },
        { text: "after compaction" },
      ],
    });
    harness = createHarness({ providers: { fake } });
    const result = await harness.agent.chat(request(chinese));
    expect(result.reply).toBe("after compaction");
    expect((harness.engine as TestContextEngine).compactions.map((c) => c.reason)).toEqual([
      "timeout",
    ]);
  });

  it("steps the thinking level down when the model rejects it", async () => {
    const fake = createFakeProvider({
      script: (req) =>
        req.thinkingLevel === "high" || req.thinkingLevel === "medium"
          ? {
              error: {
                code: "PROVIDER_BAD_RESPONSE",
                message: `reasoning effort ${req.thinkingLevel} is not supported by this model`,
                details: { thinkingLevelRejected: true },
              },
            }
          : { text: `ok at ${req.thinkingLevel}` },
    });
    harness = createHarness({ providers: { fake }, config: { agent: { thinkingLevel: "high" } } });
    const result = await harness.agent.chat(request("think"));
    expect(result.reply).toBe("ok at low");
    expect(fake.requests.map((r) => r.thinkingLevel)).toEqual(["high", "medium", "low"]);
  });

  it("an abort mid-stream stores an aborted message and a result for every started tool call", async () => {
    const controller = new AbortController();
    const fake = createFakeProvider({
      script: [
        { toolCalls: [{ name: "exec", arguments: { command: "sleep 5" } }] },
        { text: "never reached" },
      ],
    });
    harness = createHarness({ providers: { fake } });
    setTimeout(() => controller.abort(), 300);
    const result = await harness.agent.chat({ ...request("sleep"), signal: controller.signal });
    expect(result.error?.code).toBe("ABORTED");
    const messages = harness.messages(result.sessionKey);
    expectRepaired(messages);
    expect(harness.store.sessions.byKey(result.sessionKey)?.abortedLastRun).toBe(true);
  });

  it("a hanging model is stopped by abort and the transcript is still repaired", async () => {
    const controller = new AbortController();
    const fake = createFakeProvider({ script: [{ text: "thinking about it", hang: true }] });
    harness = createHarness({ providers: { fake } });
    setTimeout(() => controller.abort(), 200);
    const result = await harness.agent.chat({ ...request("hang"), signal: controller.signal });
    expect(result.error?.code).toBe("ABORTED");
    const last = harness.messages(result.sessionKey).at(-1);
    expect(last?.role === "assistant" && last.stopReason).toBe("aborted");
  });
});

describe("a reply cut at the token limit before any words", () => {
  it("is reported in plain words naming the setting, not delivered as an empty reply", async () => {
    const fake = createFakeProvider({ id: "fake", script: [{ text: "", stopReason: "length" }] });
    harness = createHarness({ providers: { fake } });
    const result = await harness.agent.chat(ownerRequest("hello"));
    expect(result.error?.code).toBe("PROVIDER_BAD_RESPONSE");
    expect(result.reply).toContain("models.providers.fake.maxTokens");
    expect(harness.messages("agent:main:cli:direct:owner").at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "length",
    });
  });
});
