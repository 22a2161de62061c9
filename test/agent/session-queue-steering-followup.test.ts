import { afterEach, describe, expect, it } from "vitest";
import { messageText } from "../../src/messages/index.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { createHarness, type Harness } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const req = (key: string, text: string) => ({
  sessionKey: key,
  text,
  channel: "cli",
  senderId: "cli",
  chatType: "direct" as const,
});

describe("per-session queue", () => {
  it("runs one at a time per session, in order (follow-up)", async () => {
    let active = 0;
    let maxActive = 0;
    const fake = createFakeProvider({
      script: (request) => {
        active++;
        maxActive = Math.max(maxActive, active);
        const last = request.messages.at(-1);
        setTimeout(() => active--, 40);
        return { text: `re: ${last ? messageText(last) : ""}`, delayMs: 10, chunkSize: 2 };
      },
    });
    harness = createHarness({ providers: { fake } });
    const results = await Promise.all(
      ["one", "two", "three"].map((t) => harness?.agent.chat(req("same", t))),
    );
    expect(results.map((r) => r?.reply)).toEqual(["re: one", "re: two", "re: three"]);
    const roles = harness.messages("same").map((m) => `${m.role}:${messageText(m)}`);
    expect(roles).toEqual([
      "user:one",
      "assistant:re: one",
      "user:two",
      "assistant:re: two",
      "user:three",
      "assistant:re: three",
    ]);
  });

  it("steering joins the running run at the next turn boundary", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowTool = {
      name: "slow",
      description: "waits",
      parameters: { type: "object", properties: {} },
      execute: async () => {
        await gate;
        return { content: [{ type: "text" as const, text: "slow done" }] };
      },
    };
    const fake = createFakeProvider({
      script: [{ toolCalls: [{ name: "slow", arguments: {} }] }, { text: "saw the steering" }],
    });
    harness = createHarness({ providers: { fake }, tools: [slowTool] });
    const first = harness.agent.chat(req("s", "start"));
    await Bun.sleep(50);
    const steered = harness.agent.chat({ ...req("s", "also do X"), queueMode: "steer" });
    release();
    const [a, b] = await Promise.all([first, steered]);
    expect(a.reply).toBe("saw the steering");
    expect(b).toEqual(a);
    expect(harness.messages("s").map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
      "assistant",
    ]);
    expect(fake.requests[1]?.messages.at(-1)).toMatchObject({ role: "user", content: "also do X" });
  });

  it("different sessions run side by side, bounded by agent.maxConcurrent", async () => {
    let active = 0;
    let maxActive = 0;
    const fake = createFakeProvider({
      script: () => ({ text: "x".repeat(20), delayMs: 10, chunkSize: 4 }),
    });
    harness = createHarness({ providers: { fake }, config: { agent: { maxConcurrent: 2 } } });
    const onEvent = (e: { type: string }) => {
      if (e.type === "agent_start") maxActive = Math.max(maxActive, ++active);
      if (e.type === "agent_end") active--;
    };
    await Promise.all(
      ["a", "b", "c", "d", "e"].map((k) => harness?.agent.chat({ ...req(k, "hi"), onEvent })),
    );
    expect(maxActive).toBe(2);
  });
});

describe("slash commands", () => {
  it("/status shows usage and cost per kind; /new starts a fresh session under the key", async () => {
    const fake = createFakeProvider({
      id: "cloud",
      model: "big",
      script: () => ({
        text: "hello",
        usage: { input: 1000, output: 200, cacheRead: 500, cacheWrite: 100 },
      }),
    });
    harness = createHarness({
      providers: { cloud: fake },
      config: {
        models: {
          primary: "cloud",
          providers: {
            cloud: {
              kind: "openai",
              baseUrl: "http://127.0.0.1:1",
              model: "big",
              cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
            },
          },
        },
      },
    });
    const first = await harness.agent.chat(req("k", "hi"));
    await harness.agent.chat(req("k", "again"));
    const stored = harness.messages("k").find((m) => m.role === "assistant");
    expect(stored?.role === "assistant" && stored.usage.cost?.total).toBeCloseTo(
      (1000 * 3 + 200 * 15 + 500 * 0.3 + 100 * 3.75) / 1e6,
      10,
    );
    const status = await harness.agent.chat(req("k", "/status"));
    expect(status.reply).toContain("model: cloud/big");
    expect(status.reply).toMatch(/input:\s+2000 tokens, \$0\.0060/);
    expect(status.reply).toMatch(/output:\s+400 tokens, \$0\.0060/);
    expect(status.reply).toMatch(/cache read:\s+1000 tokens, \$0\.0003/);
    expect(status.reply).toMatch(/cache write:\s+200 tokens, \$0\.00075/);
    expect(fake.requests).toHaveLength(2);

    const fresh = await harness.agent.chat(req("k", "/new"));
    expect(fresh.sessionId).not.toBe(first.sessionId);
    expect(harness.messages("k")).toEqual([]);
    expect(harness.store.transcript.count(first.sessionId)).toBe(4);
  });

  it("/compact asks the engine for a manual compaction", async () => {
    const fake = createFakeProvider({ script: () => ({ text: "ok" }) });
    harness = createHarness({ providers: { fake } });
    await harness.agent.chat(req("k", "hi"));
    const result = await harness.agent.chat(req("k", "/compact"));
    expect(result.reply).toMatch(/^Compacted/);
  });
});
