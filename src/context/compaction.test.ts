import { describe, expect, it } from "vitest";
import { makeFixture } from "../../test/fixtures/engine-fixture.ts";
import type { Message } from "../messages/index.ts";
import type { ProviderRequest } from "../providers/index.ts";
import type { CompactionEvent } from "./context-engine.ts";

const UUID = "3f2b8c1e-9a4d-4e7b-8c2f-1d6e5a9b0c7d";
const URL = "https://ha.example.lan:8123/api/services/light/turn_on";
const filler = (n: number) =>
  "The user and the assistant talk about the garden, the heating and dinner plans. ".repeat(n);

function seedHistory(fx: ReturnType<typeof makeFixture>, turns: number) {
  const session = fx.session();
  const add = (message: Message) =>
    fx.store.transcript.append(session.sessionId, { type: "message", message });
  const t = Date.now() - 3_600_000;
  add({
    role: "user",
    content: `Remember the automation id ${UUID} and call ${URL} at sunset.`,
    timestamp: t,
  });
  for (let i = 0; i < turns; i++) {
    add({ role: "user", content: `Question ${i}: ${filler(3)}`, timestamp: t + i * 1000 });
    add({
      role: "assistant",
      content: [
        { type: "text", text: `Checking ${i}.` },
        { type: "toolCall", id: `call_${i}`, name: "exec", arguments: { command: `ls /srv/${i}` } },
      ],
      provider: "fake",
      model: "fake",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      stopReason: "toolUse",
      timestamp: t + i * 1000 + 1,
    });
    add({
      role: "toolResult",
      toolCallId: `call_${i}`,
      toolName: "exec",
      content: [{ type: "text", text: `result ${i} ${filler(4)}` }],
      isError: false,
      timestamp: t + i * 1000 + 2,
    });
    add({
      role: "assistant",
      content: [{ type: "text", text: `Answer ${i}. ${filler(1)}` }],
      provider: "fake",
      model: "fake",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      stopReason: "stop",
      timestamp: t + i * 1000 + 3,
    });
  }
  return fx.store.sessions.require(session.sessionId);
}

const promptOf = (r: ProviderRequest): string => {
  const c = r.messages[0]?.content;
  return typeof c === "string" ? c : JSON.stringify(c);
};

describe("compaction", () => {
  it("summarizes old turns, keeps tool pairs together and the identifiers verbatim in the instructions", async () => {
    const fx = makeFixture();
    try {
      const session = seedHistory(fx, 40);
      const provider = fx.provider({
        contextWindow: 8192,
        script: () => ({ text: "Summary: garden, heating, dinner." }),
      });
      const events: CompactionEvent[] = [];
      let flushes = 0;
      const result = await fx.engine.compact({
        session,
        provider,
        reason: "manual",
        onEvent: (e) => events.push(e),
        memoryFlush: async () => {
          flushes += 1;
        },
      });
      expect(result.compacted).toBe(true);
      expect(result.level).toBe(1);
      expect(events.map((e) => e.type)).toEqual(["compaction_start", "compaction_end"]);
      expect(flushes).toBe(1);
      expect(provider.requests.length).toBeGreaterThan(1);
      // Every chunk keeps each tool call with its result.
      for (const request of provider.requests) {
        const text = promptOf(request);
        for (const m of text.matchAll(/\[tool call exec \{"command":"ls \/srv\/(\d+)"\}\]/g)) {
          expect(text).toContain(`[tool result exec] result ${m[1]} `);
        }
      }
      // The merge instructions list the identifiers from the old turns verbatim.
      const merge = promptOf(provider.requests[provider.requests.length - 1] as ProviderRequest);
      expect(merge).toContain("MUST PRESERVE");
      expect(merge).toContain("Merge these partial summaries");
      expect(merge).toContain(`- ${UUID}`);
      expect(merge).toContain(`- ${URL}`);

      const entry = fx.store.transcript.get(session.sessionId, result.entryId ?? "");
      expect(entry?.type).toBe("compaction");
      if (entry?.type !== "compaction") throw new Error("no compaction entry");
      // The summary lost them, so they were appended verbatim.
      expect(entry.summary).toContain(UUID);
      expect(entry.summary).toContain(URL);
      const firstKept = fx.store.transcript.get(session.sessionId, entry.firstKeptEntryId);
      expect(firstKept?.type === "message" && firstKept.message.role).toBe("user");
      expect(fx.store.sessions.require(session.sessionId).compactionCount).toBe(1);
      // The next turn starts from the summary; the full transcript is still stored.
      const next = await fx.turn("what now?", { provider: fx.provider({ contextWindow: 8192 }) });
      expect(next.messages[0]?.content as string).toContain("<summary>");
      expect(next.report?.history.fromCompaction).toBe(entry.id);
      expect(fx.store.transcript.count(session.sessionId)).toBe(1 + 40 * 4 + 1);
      const calls = new Set<string>();
      for (const m of next.messages) {
        if (m.role === "assistant")
          for (const b of m.content) if (b.type === "toolCall") calls.add(b.id);
        if (m.role === "toolResult") expect(calls.has(m.toolCallId)).toBe(true);
      }
    } finally {
      fx.close();
    }
  });

  it("runs the memory flush at most once per compaction cycle", async () => {
    const fx = makeFixture();
    try {
      const session = seedHistory(fx, 30);
      fx.store.sessions.update(session.sessionId, { memoryFlush: { lastFlushCompactionCount: 0 } });
      let flushes = 0;
      const provider = fx.provider({
        contextWindow: 8192,
        script: () => ({ text: "short summary" }),
      });
      const memoryFlush = async () => {
        flushes += 1;
      };
      await fx.engine.compact({
        session: fx.store.sessions.require(session.sessionId),
        provider,
        reason: "manual",
        memoryFlush,
      });
      expect(flushes).toBe(0);
      seedHistory(fx, 30);
      await fx.engine.compact({
        session: fx.store.sessions.require(session.sessionId),
        provider,
        reason: "manual",
        memoryFlush,
      });
      expect(flushes).toBe(1);
    } finally {
      fx.close();
    }
  });

  it("falls back to a minimal note instead of failing when the summarizer keeps failing", async () => {
    const fx = makeFixture();
    try {
      const session = seedHistory(fx, 30);
      const provider = fx.provider({
        contextWindow: 8192,
        script: () => ({
          error: { code: "CONTEXT_OVERFLOW", message: "maximum context length exceeded" },
        }),
      });
      const result = await fx.engine.compact({ session, provider, reason: "overflow" });
      expect(result).toMatchObject({ compacted: true, level: 3 });
      const entry = fx.store.transcript.get(session.sessionId, result.entryId ?? "");
      expect(entry?.type === "compaction" && entry.summary).toContain("could not be summarized");
      expect(entry?.type === "compaction" && entry.summary).toContain(UUID);
    } finally {
      fx.close();
    }
  });

  it("skips threshold compaction below the limit and when the mode is off", async () => {
    const fx = makeFixture({
      config: (c) => {
        c.context.compaction.mode = "off";
      },
    });
    try {
      const session = seedHistory(fx, 30);
      const provider = fx.provider({ contextWindow: 8192 });
      expect(await fx.engine.compact({ session, provider, reason: "threshold" })).toMatchObject({
        compacted: false,
        reason: "compaction mode is off",
      });
      const big = fx.provider({ contextWindow: 200_000 });
      const fx2 = makeFixture();
      try {
        const s2 = seedHistory(fx2, 5);
        expect(
          await fx2.engine.compact({ session: s2, provider: big, reason: "threshold" }),
        ).toMatchObject({ compacted: false });
      } finally {
        fx2.close();
      }
    } finally {
      fx.close();
    }
  });
});
