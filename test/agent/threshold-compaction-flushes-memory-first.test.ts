import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/index.ts";
import { messageText } from "../../src/messages/index.ts";
import type { ProviderRequest } from "../../src/providers/index.ts";
import { createFakeProvider, type FakeProvider } from "../fakes/fake-provider.ts";
import { createHarness, expectRepaired, type Harness } from "./agent-harness.ts";

const KEY = "agent:main:cli:direct:owner";
const isSummarizer = (r: ProviderRequest) =>
  r.systemPrompt.startsWith("You compress a conversation");
const lastUserText = (r: ProviderRequest) => {
  const user = [...r.messages].reverse().find((m) => m.role === "user");
  return user ? messageText(user) : "";
};

let harness: Harness | undefined;

/** A 4096-token window with a small reserve: a few long turns cross the threshold. */
function compactingHarness(provider: FakeProvider, config: Record<string, unknown> = {}): Harness {
  return createHarness({
    providers: { fake: provider },
    engine: "real",
    config: {
      models: { primary: "fake", fallbacks: [], providers: {} },
      context: { reserveTokens: 512, compaction: { keepRecentTokens: 600 } },
      ...config,
    },
  });
}
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("threshold compaction in the agent loop", () => {
  it("runs the silent memory flush once, then compacts, and the user never sees NO_REPLY", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const provider = createFakeProvider({
      id: "fake",
      contextWindow: 4096,
      script: (request) => {
        if (isSummarizer(request))
          return { text: "Summary: the owner asked about the boiler (ticket BX-4471)." };
        const text = lastUserText(request);
        if (text.includes("[memory flush before compaction]")) {
          const flushed = request.messages.some((m) => m.role === "toolResult");
          return flushed
            ? { text: "NO_REPLY" }
            : {
                toolCalls: [
                  {
                    name: "write",
                    arguments: { path: `memory/${today}.md`, content: "- boiler ticket BX-4471\n" },
                  },
                ],
              };
        }
        return { text: `Noted. ${"The boiler needs service soon. ".repeat(40)}` };
      },
    });
    harness = compactingHarness(provider);
    const events: AgentEvent[] = [];
    const replies: string[] = [];
    for (let i = 0; i < 8; i++) {
      const result = await harness.agent.chat({
        sessionKey: KEY,
        text: `Turn ${i}: the boiler makes a noise again, ticket BX-4471. ${"Details. ".repeat(30)}`,
        channel: "cli",
        senderId: "cli",
        chatType: "direct",
        onEvent: (e) => events.push(e),
      });
      expect(result.error).toBeUndefined();
      replies.push(result.reply);
    }
    const session = harness.store.sessions.byKey(KEY);
    expect(session?.compactionCount).toBeGreaterThanOrEqual(1);
    const entries = session ? harness.store.transcript.all(session.sessionId) : [];
    expect(entries.some((e) => e.type === "compaction")).toBe(true);
    expect(events.some((e) => e.type === "compaction_start")).toBe(true);
    expect(events.some((e) => e.type === "compaction_end")).toBe(true);
    // The flush wrote the durable note before the summary replaced the old turns.
    const note = join(harness.paths.workspace, "memory", `${today}.md`);
    expect(existsSync(note)).toBe(true);
    expect(readFileSync(note, "utf8")).toContain("BX-4471");
    // Exactly one flush per compaction cycle, and its NO_REPLY never reached the user.
    const flushPrompts = provider.requests.filter((r) =>
      lastUserText(r).includes("[memory flush before compaction]"),
    );
    const flushTurns = new Set(flushPrompts.map((r) => lastUserText(r))).size;
    expect(flushTurns).toBeLessThanOrEqual(session?.compactionCount ?? 0);
    expect(flushTurns).toBeGreaterThanOrEqual(1);
    expect(replies.every((r) => !r.includes("NO_REPLY"))).toBe(true);
    expectRepaired(harness.messages(KEY));
  });

  it("never runs the memory flush for a stranger's session (even one granted file tools), which compacts all the same", async () => {
    const provider = createFakeProvider({
      id: "fake",
      contextWindow: 4096,
      script: (request) =>
        isSummarizer(request)
          ? { text: "Summary: a group member asked about the party." }
          : { text: `Sure. ${"The party is on Saturday evening. ".repeat(40)}` },
    });
    // Granted the file tools, so only the stranger rule itself keeps the flush away.
    harness = compactingHarness(provider, {
      tools: { bySender: { "qq:STRANGER": { strangers: { deny: [] } } } },
    });
    const key = "agent:main:qq:group:G1";
    for (let i = 0; i < 8; i++) {
      const result = await harness.agent.chat({
        sessionKey: key,
        text: `Turn ${i}: when is the party? ${"Details. ".repeat(30)}`,
        channel: "qq",
        senderId: "qq:STRANGER",
        chatType: "group",
        groupId: "G1",
      });
      expect(result.error).toBeUndefined();
    }
    expect(harness.store.sessions.byKey(key)?.compactionCount).toBeGreaterThanOrEqual(1);
    // A stranger's conversation never writes the owner's memory: no flush turn at all.
    expect(
      provider.requests.filter((r) => lastUserText(r).includes("[memory flush before compaction]")),
    ).toEqual([]);
    expect(existsSync(join(harness.paths.workspace, "memory"))).toBe(false);
  });
});
