/**
 * A turn reads its session's history once: `maintain` (run before every turn) reads only
 * the last entry when the branch ends in an answer, and still reads and repairs the whole
 * branch when a killed run left a tool call unanswered.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type Fixture, makeFixture } from "../../test/fixtures/engine-fixture.ts";
import type { AssistantMessage, Message } from "../messages/index.ts";
import { MISSING_RESULT_TEXT } from "./repair-transcript.ts";

let fx: Fixture;
afterEach(() => fx?.close());

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const assistant = (content: AssistantMessage["content"]): AssistantMessage => ({
  role: "assistant",
  content,
  provider: "p",
  model: "m",
  usage,
  stopReason: content.some((b) => b.type === "toolCall") ? "toolUse" : "stop",
  timestamp: 1,
});
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 1 });

describe("context maintenance before a turn", () => {
  it("reads only the last entry after an answer, and the whole branch after a killed tool call", async () => {
    fx = makeFixture();
    const { sessionId } = fx.session();
    const transcript = fx.store.transcript;
    const branchReads = { n: 0 };
    const branch = transcript.branch.bind(transcript);
    transcript.branch = (...args) => {
      branchReads.n++;
      return branch(...args);
    };
    const append = (message: Message) => transcript.append(sessionId, { type: "message", message });

    append(user("is the kitchen light on?"));
    append(assistant([{ type: "text", text: "It is on." }]));
    await fx.engine.maintain(sessionId, fx.store);
    expect(branchReads.n).toBe(0);
    expect(transcript.count(sessionId)).toBe(2);

    // A run killed while its tool ran: the call is the last entry, with no result.
    append(user("turn it off"));
    append(assistant([{ type: "toolCall", id: "call_0", name: "exec", arguments: {} }]));
    await fx.engine.maintain(sessionId, fx.store);
    expect(branchReads.n).toBe(1);
    const repaired = transcript.branch(sessionId).at(-1);
    expect(repaired?.type === "message" && repaired.message.role).toBe("toolResult");
    expect(JSON.stringify(repaired)).toContain(MISSING_RESULT_TEXT);
    expect(transcript.count(sessionId)).toBe(5);
  });
});
