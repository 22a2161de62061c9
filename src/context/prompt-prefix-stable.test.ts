import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Fixture, makeFixture } from "../../test/fixtures/engine-fixture.ts";

let fx: Fixture;
afterEach(() => fx?.close());

describe("cache boundary", () => {
  it("keeps the prefix byte-identical across turns that differ only in sender and time", async () => {
    fx = makeFixture();
    const cloud = fx.provider({ contextWindow: 128_000 });
    const a = await fx.turn("hi", {
      modelKind: "cloud",
      provider: cloud,
      dynamic: {
        senderId: "qq:alice",
        senderName: "Alice",
        now: Date.parse("2025-03-01T08:00:00Z"),
        messageId: "m1",
        chatType: "group",
        groupId: "g1",
      },
    });
    const b = await fx.turn("hi", {
      modelKind: "cloud",
      provider: cloud,
      dynamic: {
        senderId: "qq:bob",
        senderName: "Bob",
        now: Date.parse("2025-03-02T21:30:00Z"),
        messageId: "m2",
        replyTo: "m1",
      },
    });
    const prefixA = a.systemPrompt.slice(0, a.cacheBoundary);
    const prefixB = b.systemPrompt.slice(0, b.cacheBoundary);
    expect(prefixA).toBe(prefixB);
    expect(a.report?.prefixHash).toBe(b.report?.prefixHash);
    expect(prefixA).not.toContain("Alice");
    expect(prefixA).not.toContain("2025-03-01");
    // The dynamic suffix carries the per-turn facts below the boundary.
    expect(a.systemPrompt.slice(a.cacheBoundary)).toContain("sender: Alice (qq:alice)");
    expect(a.systemPrompt.slice(a.cacheBoundary)).toContain("2025-03-01 16:00:00");
    expect(b.systemPrompt.slice(b.cacheBoundary)).toContain("reply_to: m1");
  });

  it("puts per-turn facts into the user message for local models, so the whole system prompt is identical", async () => {
    fx = makeFixture();
    rmSync(join(fx.paths.workspace, "BOOTSTRAP.md"));
    const local = fx.provider({ contextWindow: 8192 });
    const a = await fx.turn("lights on", {
      provider: local,
      dynamic: { senderId: "qq:alice", now: 1_700_000_000_000, messageId: "x1" },
    });
    const b = await fx.turn("lights on", {
      provider: local,
      dynamic: { senderId: "qq:bob", now: 1_700_000_900_000, messageId: "x2" },
    });
    expect(a.systemPrompt).toBe(b.systemPrompt);
    expect(a.cacheBoundary).toBe(a.systemPrompt.length);
    const last = b.messages[b.messages.length - 1];
    expect(last?.role).toBe("user");
    expect(last?.content as string).toMatch(
      /^\[turn channel: cli; chat: direct; sender: qq:bob; message_id: x2; time: 2023-11-15 /,
    );
    expect(String(last?.content).endsWith("lights on")).toBe(true);
  });

  it("builds full, minimal and none modes", async () => {
    fx = makeFixture();
    const session = fx.session();
    const run = (promptMode: "full" | "minimal" | "none") =>
      fx.engine.assemble({
        session,
        provider: fx.provider(),
        modelKind: "local",
        runKind: "interactive",
        promptMode,
        tools: [{ name: "read", description: "read a file", parameters: { type: "object" } }],
        dynamic: { channel: "cli", chatType: "direct", now: 0 },
      });
    const full = await run("full");
    const minimal = await run("minimal");
    const none = await run("none");
    for (const s of [
      "## Tooling",
      "## Safety",
      "## Documentation",
      "## Messaging",
      "## Heartbeats",
      "## Memory recall",
      "# Project Context",
    ]) {
      expect(full.systemPrompt).toContain(s);
    }
    expect(full.systemPrompt).toMatch(/docs\/guide/);
    expect(minimal.systemPrompt).toContain("## Tooling");
    expect(minimal.systemPrompt).not.toContain("## Messaging");
    expect(minimal.systemPrompt).not.toContain("## Memory recall");
    expect(none.systemPrompt.trim()).toBe(
      "You are the home assistant of this house, running inside clawbox on a small box on the local network.",
    );
  });
});
