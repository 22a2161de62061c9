import { describe, expect, it } from "vitest";
import { makeFixture } from "../../test/fixtures/engine-fixture.ts";
import { exportSessionJsonl, importSessionJsonl } from "../store/index.ts";

const lines = [
  {
    type: "session",
    version: 3,
    id: "8a7e3c52-1b0f-4f7e-9c1d-2e6b4a9f0d11",
    timestamp: "2025-02-01T10:00:00.000Z",
    cwd: "/home/pi/.openclaw/workspace",
  },
  {
    type: "model_change",
    id: "a1b2c3d4",
    parentId: null,
    timestamp: "2025-02-01T10:00:00.100Z",
    provider: "anthropic",
    modelId: "claude-sonnet-4",
  },
  {
    type: "thinking_level_change",
    id: "b2c3d4e5",
    parentId: "a1b2c3d4",
    timestamp: "2025-02-01T10:00:00.200Z",
    thinkingLevel: "low",
  },
  {
    type: "message",
    id: "c3d4e5f6",
    parentId: "b2c3d4e5",
    timestamp: "2025-02-01T10:00:01.000Z",
    message: {
      role: "user",
      content: [{ type: "text", text: "你好，what's in /etc/hosts?" }],
      timestamp: 1738404001000,
    },
  },
  {
    type: "message",
    id: "d4e5f6a7",
    parentId: "c3d4e5f6",
    timestamp: "2025-02-01T10:00:02.000Z",
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "read it", thinkingSignature: "sig==" },
        { type: "toolCall", id: "toolu_01", name: "read", arguments: { path: "/etc/hosts" } },
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4",
      usage: {
        input: 120,
        output: 30,
        cacheRead: 0,
        cacheWrite: 100,
        totalTokens: 250,
        cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0.05, total: 0.35 },
      },
      stopReason: "toolUse",
      timestamp: 1738404002000,
    },
  },
  {
    type: "message",
    id: "e5f6a7b8",
    parentId: "d4e5f6a7",
    timestamp: "2025-02-01T10:00:03.000Z",
    message: {
      role: "toolResult",
      toolCallId: "toolu_01",
      toolName: "read",
      content: [{ type: "text", text: "127.0.0.1 localhost" }],
      isError: false,
      timestamp: 1738404003000,
    },
  },
  {
    type: "message",
    id: "f6a7b8c9",
    parentId: "e5f6a7b8",
    timestamp: "2025-02-01T10:00:04.000Z",
    message: {
      role: "assistant",
      content: [{ type: "text", text: "Only localhost." }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4",
      usage: { input: 200, output: 5, cacheRead: 100, cacheWrite: 0, totalTokens: 305 },
      stopReason: "stop",
      timestamp: 1738404004000,
    },
    unknownField: { kept: true },
  },
];

describe("OpenClaw transcripts", () => {
  it("import and export losslessly, and the engine assembles them", async () => {
    const fx = makeFixture();
    try {
      const text = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
      const session = importSessionJsonl(fx.store, text, {
        source: "openclaw.jsonl",
        keyForCopy: (id) => `agent:main:import:direct:${id}`,
      });
      expect(exportSessionJsonl(fx.store, session.sessionId)).toBe(text);
      const out = await fx.engine.assemble(
        {
          session,
          provider: fx.provider(),
          modelKind: "cloud",
          runKind: "interactive",
          tools: [],
          dynamic: { channel: "cli", chatType: "direct", now: Date.now() },
        },
        { role: "user", content: "and now?", timestamp: Date.now() },
      );
      expect(out.messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
      ]);
      expect(out.report?.history.entries).toBe(6);
    } finally {
      fx.close();
    }
  });
});
