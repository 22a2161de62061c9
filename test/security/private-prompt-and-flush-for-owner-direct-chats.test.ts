/**
 * Two promises of docs/SECURITY.md's table, attacked: MEMORY.md and USER.md are in the
 * system prompt only for an owner in a direct chat (not for a stranger, not for the
 * owner in a group chat where others read along), and the memory flush before a
 * compaction (a silent turn that writes notes) never runs for a stranger's session.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { messageText } from "../../src/messages/index.ts";
import type { ProviderRequest } from "../../src/providers/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const lastUserText = (r: ProviderRequest) => {
  const user = [...r.messages].reverse().find((m) => m.role === "user");
  return user ? messageText(user) : "";
};

describe("the owner's private files and memory flush", () => {
  it("MEMORY.md and USER.md reach the prompt of an owner's direct chat only", async () => {
    const fake = createFakeProvider({ contextWindow: 64_000, script: () => ({ text: "ok" }) });
    harness = createHarness({
      providers: { fake },
      engine: "real",
      config: { agent: { owners: ["cli", "qq:OWNER"] } },
    });
    writeFileSync(join(harness.paths.workspace, "MEMORY.md"), "door code SECRET-MEMORY\n");
    writeFileSync(join(harness.paths.workspace, "USER.md"), "likes tea SECRET-USER\n");
    const turns = [
      {
        who: "owner, direct",
        owner: true,
        sessionKey: "agent:main:qq:direct:OWNER",
        senderId: "qq:OWNER",
        chatType: "direct" as const,
      },
      {
        who: "owner, group",
        owner: false,
        sessionKey: "agent:main:qq:group:G",
        senderId: "qq:OWNER",
        chatType: "group" as const,
        groupId: "G",
      },
      {
        who: "stranger, direct",
        owner: false,
        sessionKey: "agent:main:qq:direct:S",
        senderId: "qq:S",
        chatType: "direct" as const,
      },
    ];
    for (const { who, owner, ...turn } of turns) {
      const result = await harness.agent.chat({ ...turn, channel: "qq", text: "hello" });
      expect(result.error).toBeUndefined();
      const prompt = fake.requests.at(-1)?.systemPrompt ?? "";
      expect({
        who,
        memory: prompt.includes("SECRET-MEMORY"),
        user: prompt.includes("SECRET-USER"),
      }).toEqual({ who, memory: owner, user: owner });
    }
  });

  it.each([
    {
      who: "a stranger's session",
      sessionKey: "agent:main:qq:direct:STRANGER",
      senderId: "qq:STRANGER",
      chatType: "direct" as const,
    },
    // The group's conversation holds what every member wrote: it must not become the owner's notes.
    {
      who: "the owner's turns in a group",
      sessionKey: "agent:main:qq:group:G",
      senderId: "qq:OWNER",
      chatType: "group" as const,
      groupId: "G",
    },
  ])("$who compacts without the memory flush turn, even with file tools granted", async (turn) => {
    const fake = createFakeProvider({
      contextWindow: 4096,
      script: (request) =>
        request.systemPrompt.startsWith("You compress a conversation")
          ? { text: "Summary: a visitor chatted." }
          : { text: `Noted. ${"Visitors talk a lot. ".repeat(40)}` },
    });
    harness = createHarness({
      providers: { fake },
      engine: "real",
      config: {
        models: { primary: "fake", fallbacks: [], providers: {} },
        agent: { owners: ["cli", "qq:OWNER"] },
        context: { reserveTokens: 512, compaction: { keepRecentTokens: 600 } },
        // Granted `write`: the flush turn could write notes; it must still never run.
        tools: { strangers: { deny: ["group:runtime"] } },
      },
    });
    const { who: _who, ...identity } = turn;
    const key = turn.sessionKey;
    for (let i = 0; i < 8; i++) {
      const result = await harness.agent.chat({
        ...identity,
        text: `Turn ${i}: ${"Let me tell you a long story. ".repeat(30)}`,
        channel: "qq",
      });
      expect(result.error).toBeUndefined();
    }
    expect(harness.store.sessions.byKey(key)?.compactionCount).toBeGreaterThanOrEqual(1);
    const flushes = fake.requests.filter((r) =>
      lastUserText(r).includes("[memory flush before compaction]"),
    );
    expect(flushes).toHaveLength(0);
  });
});
