import { describe, expect, it } from "vitest";
import { bootstrapUserBlock } from "../context/bootstrap-destination.ts";
import { decoratePending } from "../context/pending-message.ts";
import type { TranscriptEntry } from "../messages/index.ts";
import { renderTurnPrefix } from "../prompt/index.ts";
import { reminderPrompt } from "../scheduler/index.ts";
import { showEntry } from "./api-sessions.ts";

const stamp = renderTurnPrefix({ channel: "web", chatType: "direct", senderId: "cli", now: 0 });
const entry = (content: unknown): TranscriptEntry =>
  ({
    type: "message",
    id: "e1",
    parentId: null,
    timestamp: "2026-12-01T00:00:00.000Z",
    message: { role: "user", content, timestamp: 0 },
  }) as TranscriptEntry;

describe("a transcript shows what the person wrote", () => {
  it("without the turn stamp or a first-run BOOTSTRAP.md block, as text or as blocks", () => {
    const plain = decoratePending({ role: "user", content: "hello box", timestamp: 0 }, [stamp]);
    expect(JSON.stringify(plain)).toContain("[turn channel: web");
    expect(showEntry(entry(plain.content)).text).toBe("hello box");
    const first = decoratePending({ role: "user", content: "hi\n\nthere", timestamp: 0 }, [
      bootstrapUserBlock("# Bootstrap\n\nAsk their name.\n\n[turn fake]"),
      stamp,
    ]);
    expect(showEntry(entry(first.content)).text).toBe("hi\n\nthere");
    const blocks = decoratePending(
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
        timestamp: 0,
      },
      [stamp],
    );
    const shown = showEntry(entry(blocks.content));
    expect(shown.text).toBe("look");
    expect(shown.images).toHaveLength(1);
    // A message without a lead is shown as it is, even one that starts with a bracket.
    expect(showEntry(entry("[turn this is just text")).text).toBe("[turn this is just text");
  });

  it("marks a reminder's prompt as the reminder's, not the person's", () => {
    const job = { id: "r1", text: "take the bins out" } as Parameters<typeof reminderPrompt>[0];
    const prompt = decoratePending(
      { role: "user", content: reminderPrompt(job, 0, false), timestamp: 0 },
      [stamp],
    );
    expect(showEntry(entry(prompt.content)).from).toBe("reminder");
    // Shown as the reminder's own text, not the scheduler's prompt around it.
    expect(showEntry(entry(prompt.content)).text).toBe("take the bins out");
    expect(showEntry(entry("hello box")).from).toBeUndefined();
  });
});
