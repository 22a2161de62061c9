/**
 * A single message bigger than the model's window cannot be helped by /compact: the
 * user is told that the message itself is too long, with the limit, and no model call
 * or compaction is wasted on it. The real context engine over a real SQLite store.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { createHarness, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("an oversized single message", () => {
  it("is refused as too long for the model's window, with the limit", async () => {
    let calls = 0;
    const fake = createFakeProvider({
      contextWindow: 4096,
      script: () => {
        calls += 1;
        return { error: { code: "CONTEXT_OVERFLOW", message: "prompt is too long" } };
      },
    });
    harness = createHarness({ engine: "real", providers: { fake } });
    const result = await harness.agent.chat(ownerRequest("tell me about the garden ".repeat(2000)));
    expect(result.error?.code).toBe("CONTEXT_OVERFLOW");
    expect(result.reply).toMatch(
      /^Your message is too long for this model: about \d+ tokens, but at most \d+ fit in its 4096-token window\./,
    );
    expect(result.reply).not.toMatch(/compact/);
    expect(calls).toBe(0);
    // The message itself is kept in the transcript, not lost.
    const stored = harness.messages(result.sessionKey);
    expect(stored.some((m) => m.role === "user")).toBe(true);
  });

  it("a message that fits still reaches the model", async () => {
    const fake = createFakeProvider({ contextWindow: 4096, script: [{ text: "fine" }] });
    harness = createHarness({ engine: "real", providers: { fake } });
    const result = await harness.agent.chat(ownerRequest("tell me about the garden"));
    expect(result.reply).toBe("fine");
  });
});
