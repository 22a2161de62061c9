import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";

const SESSION_ID = "3f0c6a4e-2b7d-4c1e-9a55-0f1e2d3c4b5a";
const OPENCLAW_TRANSCRIPT = [
  {
    type: "session",
    version: 3,
    id: SESSION_ID,
    timestamp: "2026-01-05T08:00:00.000Z",
    cwd: "/home/pi/.openclaw/workspace",
  },
  {
    type: "model_change",
    id: "a0000001",
    parentId: null,
    timestamp: "2026-01-05T08:00:00.100Z",
    provider: "anthropic",
    modelId: "claude-sonnet-4-5",
  },
  {
    type: "thinking_level_change",
    id: "a0000002",
    parentId: "a0000001",
    timestamp: "2026-01-05T08:00:00.200Z",
    thinkingLevel: "low",
  },
  {
    type: "message",
    id: "a0000003",
    parentId: "a0000002",
    timestamp: "2026-01-05T08:00:01.000Z",
    message: { role: "user", content: "打开客厅的灯", timestamp: 1767600001000 },
  },
  {
    type: "message",
    id: "a0000004",
    parentId: "a0000003",
    timestamp: "2026-01-05T08:00:02.000Z",
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "call the light tool", thinkingSignature: "sig==" },
        {
          type: "toolCall",
          id: "toolu_01",
          name: "ha_call",
          arguments: { entity: "light.living_room", on: true },
        },
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: {
        input: 812,
        output: 40,
        cacheRead: 700,
        cacheWrite: 0,
        totalTokens: 1552,
        cost: { input: 0.002, output: 0.0006, cacheRead: 0.0002, cacheWrite: 0, total: 0.0028 },
      },
      stopReason: "toolUse",
      timestamp: 1767600002000,
    },
  },
  {
    type: "message",
    id: "a0000005",
    parentId: "a0000004",
    timestamp: "2026-01-05T08:00:03.000Z",
    message: {
      role: "toolResult",
      toolCallId: "toolu_01",
      toolName: "ha_call",
      content: [{ type: "text", text: "ok" }],
      isError: false,
      timestamp: 1767600003000,
    },
  },
  {
    type: "custom",
    id: "a0000006",
    parentId: "a0000005",
    timestamp: "2026-01-05T08:00:03.500Z",
    customType: "openclaw.unknown-extension",
    data: { nested: [1, 2, { x: null }] },
  },
]
  .map((line) => JSON.stringify(line))
  .join("\n")
  .concat("\n");

describe("clawbox sessions import/export", () => {
  it("imports an OpenClaw-style v3 JSONL transcript and exports it byte for byte", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-sessions-"));
    const file = join(home, "in.jsonl");
    writeFileSync(file, OPENCLAW_TRANSCRIPT);
    const imported = await runCli(["--home", home, "sessions", "import", file]);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`imported ${SESSION_ID}`);

    const out = join(home, "out.jsonl");
    const exported = await runCli(["--home", home, "sessions", "export", SESSION_ID, "-o", out]);
    expect(exported.code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(OPENCLAW_TRANSCRIPT);

    // An existing file is not overwritten without --force (issue 38): it keeps its bytes.
    const notes = join(home, "notes.txt");
    writeFileSync(notes, "我的笔记，不要覆盖\n");
    const refused = await runCli(["--home", home, "sessions", "export", SESSION_ID, "-o", notes]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`-o ${notes}: the file exists; not overwritten`);
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(notes, "utf8")).toBe("我的笔记，不要覆盖\n");
    const forced = await runCli([
      "--home",
      home,
      "sessions",
      "export",
      SESSION_ID,
      "-o",
      notes,
      "--force",
    ]);
    expect(forced.code).toBe(0);
    expect(readFileSync(notes, "utf8")).toBe(OPENCLAW_TRANSCRIPT);

    const listed = await runCli(["--home", home, "sessions", "list", "--json"]);
    const rows = JSON.parse(listed.stdout) as {
      sessionId: string;
      messageCount: number;
      entryCount: number;
    }[];
    expect(rows).toEqual([
      expect.objectContaining({ sessionId: SESSION_ID, messageCount: 3, entryCount: 6 }),
    ]);
  });

  it("rejects a file whose entry points at an unknown parent, naming the line, and stores nothing", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-sessions-"));
    const file = join(home, "bad.jsonl");
    const lines = OPENCLAW_TRANSCRIPT.trim().split("\n");
    lines[3] = (lines[3] as string).replace('"parentId":"a0000002"', '"parentId":"zzzz"');
    writeFileSync(file, lines.join("\n"));
    const run = await runCli(["--home", home, "sessions", "import", file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("bad.jsonl:4: parentId zzzz does not name an earlier entry");
    const listed = await runCli(["--home", home, "sessions", "list", "--json"]);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it("rejects a file without a v3 header with a hint", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-sessions-"));
    const file = join(home, "v1.jsonl");
    writeFileSync(
      file,
      '{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi"}}\n',
    );
    const run = await runCli(["--home", home, "sessions", "import", file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("v1.jsonl:1: not a v3 session header");
  });
});
