import { describe, expect, it } from "vitest";
import type { BranchMessage } from "./branch-messages.ts";
import { MessageTokenCache } from "./message-token-cache.ts";
import type { TokenCounter } from "./token-counter.ts";

/** A counter that records which texts it was asked to count. */
function countingCounter(): TokenCounter & { asked: string[] } {
  const asked: string[] = [];
  return {
    exact: false,
    asked,
    count: async (text) => text.length,
    countMessage: async (message) => {
      const text = typeof message.content === "string" ? message.content : "";
      asked.push(text);
      return text.length;
    },
  };
}

const item = (entryId: string, text = `text of ${entryId}`): BranchMessage => ({
  entryId,
  message: { role: "user", content: text, timestamp: 0 },
});

describe("message token cache", () => {
  it("counts a message once while assemblies keep using it", async () => {
    const cache = new MessageTokenCache();
    const counter = countingCounter();
    for (let turn = 0; turn < 5; turn++) {
      cache.startAssembly("s1");
      expect(await cache.count("s1", item("e1"), counter)).toBe(10);
    }
    expect(counter.asked).toEqual(["text of e1"]);
  });

  it("forgets counts that two assemblies in a row did not use (compacted or pruned away)", async () => {
    const cache = new MessageTokenCache();
    const counter = countingCounter();
    cache.startAssembly("s1");
    for (const id of ["e1", "e2", "e3"]) await cache.count("s1", item(id), counter);
    // Compaction left only e3 in the history.
    for (let turn = 0; turn < 3; turn++) {
      cache.startAssembly("s1");
      await cache.count("s1", item("e3"), counter);
    }
    expect(cache.size()).toEqual({ sessions: 1, counts: 1 });
    cache.startAssembly("s1");
    await cache.count("s1", item("e1"), counter);
    expect(counter.asked).toEqual(["text of e1", "text of e2", "text of e3", "text of e1"]);
  });

  it("holds each message's count once however many assemblies used it", async () => {
    const cache = new MessageTokenCache();
    const counter = countingCounter();
    const history = Array.from({ length: 50 }, (_, i) => item(`e${i}`));
    for (let turn = 0; turn < 4; turn++) {
      cache.startAssembly("s1");
      for (const message of history) await cache.count("s1", message, counter);
    }
    expect(counter.asked).toHaveLength(50);
    expect(cache.size()).toEqual({ sessions: 1, counts: 50 });
  });

  it("keeps 16 sessions by default, whose counts grow with their histories", async () => {
    const cache = new MessageTokenCache();
    const counter = countingCounter();
    for (let s = 0; s < 40; s++) await cache.count(`s${s}`, item("e1"), counter);
    expect(cache.size().sessions).toBe(16);
  });

  it("keeps at most maxSessions sessions, dropping the least recently used", async () => {
    const cache = new MessageTokenCache(2);
    const counter = countingCounter();
    await cache.count("a", item("e1"), counter);
    await cache.count("b", item("e1"), counter);
    await cache.count("a", item("e1"), counter);
    await cache.count("c", item("e1"), counter);
    expect(cache.size().sessions).toBe(2);
    await cache.count("a", item("e1"), counter);
    await cache.count("b", item("e1"), counter);
    // a stayed (used before c came); b was dropped and counted again.
    expect(counter.asked.length).toBe(4);
  });

  it("drops sessions idle for longer than asked", async () => {
    let now = 0;
    const cache = new MessageTokenCache(32, () => now);
    const counter = countingCounter();
    await cache.count("old", item("e1"), counter);
    now = 60_000;
    await cache.count("recent", item("e1"), counter);
    now = 90_000;
    expect(cache.evictIdle(60_000)).toBe(1);
    expect(cache.size().sessions).toBe(1);
    await cache.count("recent", item("e1"), counter);
    expect(counter.asked.length).toBe(2);
  });
});
