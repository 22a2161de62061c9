/**
 * A long turn of tool calls (one user message, then only calls and results) compacted:
 * the cut cannot fall at a user message, so it must fall between pairs. Every tool
 * result ends up either in the summarizer's input or in the next prompt after its call
 * (possibly pruned to a placeholder); none vanishes from both (which a cut between a call and its result would do:
 * the call is summarized, and the kept result, now without its call, is dropped).
 */
import { describe, expect, it } from "vitest";
import { makeFixture } from "../../test/fixtures/engine-fixture.ts";
import type { Message } from "../messages/index.ts";
import type { ProviderRequest } from "../providers/index.ts";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const fact = (i: number) => `valve-${i}-reads-${1000 + i * 7}-kPa`;
const padding = (n: number) => "pressure log line steady. ".repeat(n);

/** `callSize`/`resultSize`: padding in the call's arguments and in its result (a long script, a short answer). */
function seedToolTurn(
  fx: ReturnType<typeof makeFixture>,
  calls: number,
  callSize: number,
  resultSize: number,
) {
  const session = fx.session();
  const add = (message: Message) =>
    fx.store.transcript.append(session.sessionId, { type: "message", message });
  // Recent, so cache-TTL pruning of old tool results does not apply.
  const t = Date.now() - 60_000;
  add({ role: "user", content: "check every valve in the boiler room and log it", timestamp: t });
  for (let i = 0; i < calls; i++) {
    add({
      role: "assistant",
      content: [
        {
          type: "toolCall",
          id: `call_${i}`,
          name: "exec",
          arguments: { valve: i, script: padding(callSize) },
        },
      ],
      provider: "fake",
      model: "fake",
      usage,
      stopReason: "toolUse",
      timestamp: t + i * 10 + 1,
    });
    add({
      role: "toolResult",
      toolCallId: `call_${i}`,
      toolName: "exec",
      content: [{ type: "text", text: `${fact(i)} ${padding(resultSize)}` }],
      isError: false,
      timestamp: t + i * 10 + 2,
    });
  }
  return fx.store.sessions.require(session.sessionId);
}

const promptText = (r: ProviderRequest) => JSON.stringify(r.messages);

describe("compaction of a turn made only of tool calls", () => {
  for (const [calls, callSize, resultSize] of [
    [60, 2, 40],
    [50, 30, 2],
    [70, 12, 12],
  ] as const) {
    it(`keeps each of ${calls} results (calls ${callSize}, results ${resultSize} lines) in the summary input or with its call`, async () => {
      const fx = makeFixture();
      try {
        const session = seedToolTurn(fx, calls, callSize, resultSize);
        const summarizer = fx.provider({
          contextWindow: 8192,
          script: () => ({ text: "Summary: valves checked." }),
        });
        const result = await fx.engine.compact({ session, provider: summarizer, reason: "manual" });
        expect(result.compacted).toBe(true);
        const summarized = summarizer.requests.map(promptText).join("\n");

        // A roomy window for the next turn, so nothing kept is dropped for its budget.
        const next = await fx.turn("which valves are out of range?", {
          provider: fx.provider({ contextWindow: 32768 }),
        });
        expect(next.report?.history.droppedForBudget).toBe(0);
        const calledIds = new Set<string>();
        const keptResults = new Set<string>();
        for (const m of next.messages) {
          if (m.role === "assistant")
            for (const b of m.content) if (b.type === "toolCall") calledIds.add(b.id);
          if (m.role === "toolResult") {
            expect(calledIds.has(m.toolCallId)).toBe(true);
            keptResults.add(m.toolCallId);
          }
        }
        // Something was summarized and something kept: the cut fell inside the turn.
        expect(keptResults.size).toBeGreaterThan(0);
        expect(keptResults.size).toBeLessThan(calls);
        const lost: number[] = [];
        for (let i = 0; i < calls; i++) {
          // Kept results may be pruned to a placeholder (docs/MEMORY.md), but stay with their call.
          if (!keptResults.has(`call_${i}`) && !summarized.includes(fact(i))) lost.push(i);
        }
        expect(lost).toEqual([]);
      } finally {
        fx.close();
      }
    });
  }
});
