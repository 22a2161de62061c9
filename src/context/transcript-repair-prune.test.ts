import { describe, expect, it } from "vitest";
import type { AssistantMessage, Message, ToolResultMessage } from "../messages/index.ts";
import type { BranchMessage } from "./branch-messages.ts";
import { HARD_CLEAR_TEXT, IMAGE_REMOVED_TEXT, pruneToolResults } from "./prune-tool-results.ts";
import { MISSING_RESULT_TEXT, repairTranscript } from "./repair-transcript.ts";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const call = (id: string, t = 0): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name: "exec", arguments: {} }],
  provider: "p",
  model: "m",
  usage,
  stopReason: "toolUse",
  timestamp: t,
});
const result = (id: string, text = "ok", t = 0): ToolResultMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "exec",
  content: [{ type: "text", text }],
  isError: false,
  timestamp: t,
});
const say = (text: string, t = 0): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "p",
  model: "m",
  usage,
  stopReason: "stop",
  timestamp: t,
});
const user = (text: string, t = 0): Message => ({ role: "user", content: text, timestamp: t });
function firstText(message: Message | undefined): string {
  if (message?.role !== "toolResult") return "";
  const block = message.content[0];
  return block?.type === "text" ? block.text : "";
}
const items = (messages: Message[]): BranchMessage[] =>
  messages.map((message, i) => ({ entryId: `e${i}`, message }));

describe("transcript repair", () => {
  it("moves results next to their calls, drops orphans and duplicates, synthesizes missing results", () => {
    const { messages, report } = repairTranscript(
      items([
        user("go"),
        call("a"),
        user("interjection"),
        result("a"),
        result("a"),
        result("zzz"),
        call("b"),
        say("done"),
      ]),
    );
    const roles = messages.map((m) =>
      m.message.role === "toolResult" ? `result:${m.message.toolCallId}` : m.message.role,
    );
    expect(roles).toEqual([
      "user",
      "assistant",
      "result:a",
      "user",
      "assistant",
      "result:b",
      "assistant",
    ]);
    expect(report).toMatchObject({
      moved: 1,
      droppedDuplicates: 1,
      droppedOrphans: 1,
      synthesized: 1,
    });
    const synthetic = messages[5]?.message as ToolResultMessage;
    expect(synthetic.isError).toBe(true);
    expect((synthetic.content[0] as { text: string }).text).toBe(MISSING_RESULT_TEXT);
  });
});

describe("pruning", () => {
  const big = "x".repeat(10_000);
  const history = (now: number) =>
    items([
      user("show logs", now - 1e6),
      call("old", now - 1e6),
      result("old", big, now - 1e6),
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
        timestamp: now - 1e6,
      },
      say("seen", now - 1e6),
      user("1"),
      say("a1", now - 9e5),
      user("2"),
      say("a2", now - 8e5),
      user("3"),
      call("new", now - 7e5),
      result("new", big, now - 7e5),
      say("a3", now - 7e5),
    ]);
  const options = {
    ttlMs: 300_000,
    keepLastAssistants: 3,
    softTrimMinChars: 4000,
    softTrimHeadChars: 1500,
    softTrimTailChars: 1500,
  };

  it("matches results within the turn when a server reuses call ids every turn", () => {
    const { messages, report } = repairTranscript(
      items([
        user("first"),
        call("call_0"),
        result("call_0", "first answer"),
        say("ok"),
        user("second"),
        call("call_0"),
        result("call_0", "second answer"),
        say("ok again"),
      ]),
    );
    expect(messages.map((m) => firstText(m.message)).filter(Boolean)).toEqual([
      "first answer",
      "second answer",
    ]);
    expect(report).toMatchObject({ synthesized: 0, droppedDuplicates: 0, moved: 0 });
  });

  it("pairs a result with the newest unanswered call of its id: a killed call_0 stays interrupted", () => {
    // Turn 1 was killed mid-tool (no result stored); turn 2's server reused `call_0`.
    const { messages, report } = repairTranscript(
      items([
        user("is the backup done?"),
        call("call_0"),
        user("and now?"),
        call("call_0"),
        result("call_0", "backup finished"),
        say("yes"),
      ]),
    );
    const texts = messages.map((m) => firstText(m.message)).filter(Boolean);
    expect(texts).toEqual([MISSING_RESULT_TEXT, "backup finished"]);
    expect(report).toMatchObject({ synthesized: 1, moved: 0, droppedDuplicates: 0 });
  });

  it("gives a call a result stored ahead of it in the same turn, never one from another turn", () => {
    const { messages, report } = repairTranscript(
      items([
        user("first"),
        call("c1"),
        result("c1", "answer one"),
        result("c1", "stray duplicate"),
        user("second"),
        result("c2", "stored early"),
        call("c2"),
        call("c1"),
      ]),
    );
    const texts = messages.map((m) => firstText(m.message)).filter(Boolean);
    expect(texts).toEqual(["answer one", "stored early", MISSING_RESULT_TEXT]);
    expect(report).toMatchObject({ synthesized: 1, droppedDuplicates: 1, moved: 1 });
  });

  it("does nothing before the cache TTL expired", async () => {
    const now = Date.now();
    const input = history(now).map((m) => ({ ...m, message: { ...m.message, timestamp: now } }));
    const { report, messages } = await pruneToolResults(input, { ...options, now });
    expect(report.pruned).toBe(false);
    expect(messages).toEqual(input);
  });

  it("soft-trims old results, removes old images, keeps the newest 3 assistant turns identical", async () => {
    const now = Date.now();
    const input = history(now);
    const { report, messages } = await pruneToolResults(input, { ...options, now });
    expect(report).toMatchObject({ pruned: true, reason: "ttl", softTrimmed: 1, imagesRemoved: 1 });
    const trimmed = { text: firstText(messages[2]?.message) };
    expect(trimmed.text.length).toBeLessThan(3200);
    expect(trimmed.text.startsWith("x".repeat(1500))).toBe(true);
    expect(JSON.stringify(messages[3]?.message)).toContain(IMAGE_REMOVED_TEXT);
    for (let i = 6; i < input.length; i++) expect(messages[i]).toBe(input[i]);
    expect(
      input[2]?.message.role === "toolResult" &&
        (input[2].message.content[0] as { text: string }).text,
    ).toBe(big);
  });

  it("hard-clears only as many old results as the budget needs, oldest first", async () => {
    const now = Date.now();
    const old = now - 1e6;
    const input = items([
      user("check both", old),
      call("a", old),
      result("a", "a".repeat(3000), old),
      call("b", old),
      result("b", "b".repeat(3000), old),
      say("done", old),
      user("1"),
      say("a1", now - 9e5),
      user("2"),
      say("a2", now - 8e5),
      user("3"),
      say("a3", now - 7e5),
    ]);
    const countItem = async (m: BranchMessage) => JSON.stringify(m.message).length;
    let total = 0;
    for (const item of input) total += await countItem(item);
    const { report, messages } = await pruneToolResults(input, {
      ...options,
      now,
      budget: { tokens: total - 1000, countItem },
    });
    expect(report).toMatchObject({ softTrimmed: 0, hardCleared: 1 });
    expect(firstText(messages[2]?.message)).toBe(HARD_CLEAR_TEXT);
    expect(firstText(messages[4]?.message)).toBe("b".repeat(3000));
  });

  it("hard-clears old results when still over budget, without changing the messages it was given", async () => {
    const now = Date.now();
    const input = history(now);
    const given = JSON.stringify(input);
    const { report, messages } = await pruneToolResults(input, {
      ...options,
      now,
      budget: {
        tokens: 1,
        countItem: async (m) => JSON.stringify(m.message).length,
      },
    });
    expect(report.hardCleared).toBe(1);
    expect(firstText(messages[2]?.message)).toBe(HARD_CLEAR_TEXT);
    // What was read from the transcript stays as stored: the next turn prunes afresh.
    expect(JSON.stringify(input)).toBe(given);
  });
});
