import { describe, expect, it } from "vitest";
import {
  type ChatSseSink,
  chatStreamEventOf,
  streamChatTurn,
  type TurnEventLike,
} from "./chat-stream.ts";

/** One turn's events as the agent emits them: thinking, text, a tool, compaction, text. */
const TURN: TurnEventLike[] = [
  { type: "agent_start", runId: "r", sessionId: "s", sessionKey: "k" },
  { type: "message_update", delta: "hmm", event: { type: "thinking_delta", delta: "hmm" } },
  { type: "message_update", delta: "Let me ", event: { type: "text_delta", delta: "Let me " } },
  { type: "tool_execution_start", toolCallId: "c1", toolName: "read", args: { path: "a" } },
  {
    type: "tool_execution_end",
    toolCallId: "c1",
    toolName: "read",
    isError: false,
    result: { role: "toolResult", content: [{ type: "text", text: "x".repeat(4010) }] },
  },
  { type: "compaction_start" },
  { type: "message_update", delta: "look.", event: { type: "text_delta", delta: "look." } },
];

function sink() {
  const written: string[] = [];
  const out: ChatSseSink = {
    writeSSE: async ({ event, data }) => {
      written.push(`${event} ${data}`);
    },
    write: async (text) => {
      written.push(text);
    },
  };
  return { out, written };
}

describe("the chat stream vocabulary", () => {
  it("a reply stream carries the visible text and ends with the result; a work stream adds tools and compaction", async () => {
    const result = { sessionId: "s", sessionKey: "k", reply: "Let me look.", silent: false };
    const reply = sink();
    await streamChatTurn(reply.out, { detail: "reply", keepAliveMs: 60_000 }, async (onEvent) => {
      for (const event of TURN) onEvent(event);
      return result;
    });
    expect(reply.written).toEqual([
      'delta {"text":"Let me "}',
      'delta {"text":"look."}',
      `done ${JSON.stringify(result)}`,
    ]);

    const work = TURN.map((e) => chatStreamEventOf(e, "work")).filter((e) => e !== undefined);
    expect(work.map((e) => e.event)).toEqual(["delta", "tool", "tool_end", "compaction", "delta"]);
    expect(work[1]?.data).toEqual({ id: "c1", name: "read", args: { path: "a" } });
    const end = work[2]?.data as { result: string; isError: boolean };
    expect(end.isError).toBe(false);
    expect(end.result).toMatch(/^x{4000}… \(10 more chars\)$/);
  });

  it("a failed turn ends with error and its result; keep-alive comments go out while the model is quiet", async () => {
    const failed = {
      sessionId: "s",
      sessionKey: "k",
      reply: "",
      silent: false,
      error: { code: "MODEL_UNAVAILABLE", message: "no model" },
    };
    const { out, written } = sink();
    await streamChatTurn(out, { detail: "work", keepAliveMs: 5 }, async () => {
      await Bun.sleep(40);
      return failed;
    });
    expect(written.at(-1)).toBe(`error ${JSON.stringify(failed)}`);
    expect(written.slice(0, -1).length).toBeGreaterThan(0);
    expect(new Set(written.slice(0, -1))).toEqual(new Set([": keep-alive\n\n"]));
  });
});
