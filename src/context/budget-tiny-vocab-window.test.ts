/**
 * The budget planner on a stories260K-like model without loading it: a 2048-token
 * window and a tokenizer at 2.5 chars per token (a 512-token vocabulary), where the full
 * system prompt alone is bigger than the window. The plan must degrade, every prompt
 * as the local provider renders it (ChatML pieces) must fit window − reserve, history
 * must be cut in whole turns, and the system prompt must not change with history length.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type Fixture, makeFixture } from "../../test/fixtures/engine-fixture.ts";
import type { AssistantMessage, Message } from "../messages/index.ts";
import type { Provider } from "../providers/index.ts";
import { renderPrompt } from "../providers/local/chat-prompt.ts";
import { CHATML_TEMPLATE } from "../providers/local/chat-template.ts";
import type { AssembledContext } from "./context-engine.ts";

let fx: Fixture;
afterEach(() => fx?.close());

const WINDOW = 2048;
const tinyCount = (text: string): number => Math.ceil(text.length / 2.5);

function tinyModel(): Provider {
  return { ...fx.provider({ contextWindow: WINDOW }), countTokens: async (t) => tinyCount(t) };
}

/** Tokens of the prompt exactly as the local provider renders it: BOS plus each piece. */
function renderedTokens(out: AssembledContext): number {
  const pieces = renderPrompt(
    {
      systemPrompt: out.systemPrompt,
      cacheBoundary: out.cacheBoundary,
      messages: out.messages,
      tools: out.tools,
    },
    out.tools.length > 0,
    CHATML_TEMPLATE,
  );
  return 1 + pieces.reduce((sum, piece) => sum + tinyCount(piece.text), 0);
}

const reply = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "fake",
  model: "fake-model",
  usage: {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp: Date.now(),
});

describe("budget on a 2048-token window with a 2.5 chars/token tokenizer", () => {
  it("degrades, fits every turn, cuts whole turns and keeps the system prompt identical", async () => {
    fx = makeFixture();
    const session = fx.session();
    const model = tinyModel();
    const store = (message: Message) =>
      fx.store.transcript.append(session.sessionId, { type: "message", message });
    const turns: AssembledContext[] = [];
    const story = "Once upon a time a little dog ran to the park with a red ball. ";
    for (let i = 0; i < 4; i++) {
      const out = await fx.turn(`Tell me more, part ${i}`, { provider: model, session });
      turns.push(out);
      const sent = out.pendingMessage;
      if (sent) store(sent);
      store(reply(story.repeat(6 + i * 4)));
      if (i === 2) {
        // A tool call and its result: trimming may drop them only together.
        const call = reply("");
        call.content = [{ type: "toolCall", id: "call_1", name: "read", arguments: { p: "x" } }];
        store(call);
        store({
          role: "toolResult",
          toolCallId: "call_1",
          toolName: "read",
          content: [{ type: "text", text: story.repeat(5) }],
          isError: false,
          timestamp: Date.now(),
        });
        store(reply("done"));
      }
    }
    const plan = turns[0]?.report?.budget;
    expect(plan?.contextWindow).toBe(WINDOW);
    expect(plan?.reserve).toBe(512);
    expect(plan?.exactTokens).toBe(true);
    expect(plan?.steps.length).toBeGreaterThan(0);
    for (const out of turns) {
      expect(renderedTokens(out)).toBeLessThanOrEqual(WINDOW - 512);
      // Same window and workspace: the same degradation, byte for byte.
      expect(out.systemPrompt).toBe(turns[0]?.systemPrompt);
      expect(out.report?.prefixHash).toBe(turns[0]?.report?.prefixHash);
      const last = out.messages.at(-1);
      expect(last?.role).toBe("user");
      const ids = new Set(
        out.messages.flatMap((m) =>
          m.role === "assistant"
            ? m.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : []))
            : [],
        ),
      );
      for (const m of out.messages)
        if (m.role === "toolResult") expect(ids.has(m.toolCallId)).toBe(true);
      expect(out.messages[0]?.role).toBe("user");
    }
    const lastPlan = turns.at(-1)?.report?.budget;
    expect(lastPlan?.steps.some((s) => s.startsWith("left out"))).toBe(true);
    // History grew from turn to turn yet the fixed parts stayed the same.
    expect(lastPlan?.system).toBe(plan?.system);
  });

  it("fits a first-run turn with the BOOTSTRAP.md block in the user message", async () => {
    fx = makeFixture();
    const out = await fx.turn("Hello", { provider: tinyModel() });
    expect(renderedTokens(out)).toBeLessThanOrEqual(WINDOW - 512);
    const text = out.pendingMessage?.content;
    expect(typeof text === "string" && text.startsWith("[bootstrap pending]")).toBe(true);
    expect(typeof text === "string" && text.endsWith("Hello")).toBe(true);
  });
});
