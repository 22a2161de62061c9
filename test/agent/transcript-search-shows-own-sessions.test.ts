/**
 * Issue 22: with session transcripts indexed (`memory.sessions.enabled`), a stranger
 * granted `group:memory` searched and got snippets of the owner's console session. Now
 * `memory_search` returns transcript hits of the asking principal's own sessions only,
 * whoever asks: the stranger sees theirs, the owner sees the owner's. The real agent,
 * context engine, memory service (keyword search) and SQLite store; the model is
 * scripted to call `memory_search`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMemory } from "../../src/memory/index.ts";
import type { ToolResultMessage } from "../../src/messages/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { createHarness, type Harness } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const OWNER_WEB = "agent:main:web:direct:owner";
const STRANGER = "agent:main:qq:direct:S1";

const resultText = (r: ToolResultMessage) =>
  r.content.map((c) => (c.type === "text" ? c.text : "")).join("");

/**
 * The real agent with memory tools and transcripts indexed; the scripted model answers
 * "search please" with one `memory_search` per query, and anything else with `reply`.
 */
function searchingHarness(
  queries: string[],
  reply: (text: string) => string,
  config: Record<string, unknown>,
): Harness {
  const fake = createFakeProvider({
    script: (request) => {
      const last = request.messages.at(-1);
      const text = JSON.stringify(last?.content ?? "");
      if (last?.role === "toolResult") return { text: "done" };
      if (text.includes("search please"))
        return {
          toolCalls: queries.map((query) => ({ name: "memory_search", arguments: { query } })),
        };
      return { text: reply(text) };
    },
  });
  harness = createHarness({
    providers: { fake },
    engine: "real",
    config: { memory: { sessions: { enabled: true } }, ...config },
    tools: ({ store, paths, config }) =>
      createMemory({ store, paths, config, logger: silentLogger, embedder: null }).tools,
  });
  return harness;
}

describe("memory_search over session transcripts", () => {
  it("shows each asker only the transcripts of their own sessions", async () => {
    const h = searchingHarness(
      ["router password", "purple bicycle"],
      (text) =>
        text.includes("router")
          ? "The router password is ZEBRA-OWNER-42."
          : "Your purple bicycle is in the shed.",
      // The stranger is granted everything a stranger can be granted, memory included.
      { tools: { bySender: { "qq:S1": { strangers: { deny: [] } } } } },
    );
    const stranger = { channel: "qq", senderId: "qq:S1", chatType: "direct" as const };
    const owner = { channel: "web", senderId: "cli", chatType: "direct" as const };
    await h.agent.chat({ ...owner, sessionKey: OWNER_WEB, text: "what is the router password?" });
    await h.agent.chat({ ...stranger, sessionKey: STRANGER, text: "where is my purple bicycle?" });

    await h.agent.chat({ ...stranger, sessionKey: STRANGER, text: "search please" });
    const strangerHits = h
      .messages(STRANGER)
      .filter((m): m is ToolResultMessage => m.role === "toolResult")
      .map(resultText);
    expect(strangerHits).toHaveLength(2);
    expect(strangerHits.join("\n")).not.toContain("ZEBRA-OWNER-42");
    expect(strangerHits[1]).toContain("purple bicycle");

    await h.agent.chat({ ...owner, sessionKey: OWNER_WEB, text: "search please" });
    const ownerHits = h
      .messages(OWNER_WEB)
      .filter((m): m is ToolResultMessage => m.role === "toolResult")
      .map(resultText);
    expect(ownerHits[0]).toContain("ZEBRA-OWNER-42");
    expect(ownerHits.join("\n")).not.toContain("purple bicycle");
  });
});

describe("memory_search after a sender's standing changed", () => {
  it("never shows a new owner the session they had as a stranger; an owner's earlier sessions stay searchable", async () => {
    const h = searchingHarness(["walnut ladder", "kiwi greenhouse"], () => "noted", {
      agent: { owners: ["cli"] },
      tools: { bySender: { "qq:S2": { strangers: { deny: [] } } } },
    });
    const key = "agent:main:qq:direct:S2";
    // As the channels send it: the key is the sender's own, so a changed standing opens a
    // fresh session there instead of a refusal.
    const s2 = {
      channel: "qq",
      senderId: "qq:S2",
      chatType: "direct" as const,
      foreignSession: "new-session" as const,
    };
    const owner = { channel: "web", senderId: "cli", chatType: "direct" as const };
    // As a stranger, S2 writes something into their own session.
    await h.agent.chat({ ...s2, sessionKey: key, text: "STRANGER-ERA the walnut ladder story" });
    const strangerEra = h.store.sessions.byKey(key)?.sessionId;
    // The owner's own conversation, then /new: the first session is no longer the key's.
    await h.agent.chat({ ...owner, sessionKey: OWNER_WEB, text: "the kiwi greenhouse is warm" });
    await h.agent.chat({ ...owner, sessionKey: OWNER_WEB, text: "/new" });

    // Paired: S2 is an owner now (what `clawbox pairing approve` leads to) and asks.
    h.config.agent.owners = [...h.config.agent.owners, "qq:S2"];
    await h.agent.chat({ ...s2, sessionKey: key, text: "search please" });
    expect(h.store.sessions.byKey(key)?.sessionId).not.toBe(strangerEra);
    const hits = h
      .messages(key)
      .filter((m): m is ToolResultMessage => m.role === "toolResult")
      .map(resultText);
    expect(hits).toHaveLength(2);
    expect(hits[0]).not.toContain("walnut");
    // Owners are one principal: the earlier owner session (before /new) is found.
    expect(hits[1]).toContain("kiwi greenhouse");
  });
});
