import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";
import { runCli } from "../support/run-cli.ts";

const KEY = "agent:main:qq:direct:alice";

/** A home with one session under KEY: two messages and a compaction, compactionCount 1. */
function homeWithSession(): { home: string; sessionId: string } {
  const home = mkdtempSync(join(tmpdir(), "clawbox-sess-"));
  const store = Store.open({ path: join(home, "clawbox.db") });
  try {
    const session = store.sessions.create({ sessionKey: KEY, chatType: "direct" });
    const user = store.transcript.append(session.sessionId, {
      type: "message",
      message: { role: "user", content: "turn on the porch light", timestamp: 1 },
    });
    store.transcript.append(session.sessionId, {
      type: "message",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "Done." }],
        provider: "p",
        model: "m",
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 },
        stopReason: "stop",
        timestamp: 2,
      },
    });
    store.transcript.appendCompaction(session.sessionId, {
      summary: "porch light",
      firstKeptEntryId: user.id,
      tokensBefore: 5,
    });
    return { home, sessionId: session.sessionId };
  } finally {
    store.close();
  }
}

function readStore<T>(home: string, read: (store: Store) => T): T {
  const store = Store.open({ path: join(home, "clawbox.db") });
  try {
    return read(store);
  } finally {
    store.close();
  }
}

describe("clawbox sessions delete", () => {
  it("removes the session and its transcript; the key then starts afresh", async () => {
    const { home, sessionId } = homeWithSession();
    const run = await runCli(["--home", home, "sessions", "delete", KEY]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`deleted session ${sessionId} (${KEY}, 3 entries)`);
    readStore(home, (store) => {
      expect(store.sessions.get(sessionId)).toBeUndefined();
      expect(store.sessions.byKey(KEY)).toBeUndefined();
      expect(store.transcript.count(sessionId)).toBe(0);
    });
    const again = await runCli(["--home", home, "sessions", "delete", sessionId]);
    expect(again.code).toBe(2); // not found (the exit-code table)
    expect(again.stderr).toContain(`no session with id, key or name ${sessionId}`);
  });

  it("refuses a session a live process is working in", async () => {
    const { home, sessionId } = homeWithSession();
    const store = Store.open({ path: join(home, "clawbox.db") });
    const lease = store.leases.tryAcquire(KEY);
    try {
      const run = await runCli(["--home", home, "sessions", "delete", sessionId]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`is in use by process ${process.pid}`);
    } finally {
      lease?.release();
      store.close();
    }
    expect(readStore(home, (s) => s.transcript.count(sessionId))).toBe(3);
  });
});

describe("clawbox sessions export and import", () => {
  it("keeps the key and compactionCount through export → delete → import", async () => {
    const { home, sessionId } = homeWithSession();
    const file = join(home, "s.jsonl");
    expect((await runCli(["--home", home, "sessions", "export", KEY, "-o", file])).code).toBe(0);
    await runCli(["--home", home, "sessions", "delete", KEY]);
    const imported = await runCli(["--home", home, "sessions", "import", file]);
    expect(imported.stderr).toBe("");
    expect(imported.stdout).toContain(`imported ${sessionId} as ${KEY} (3 entries)`);
    readStore(home, (store) => {
      const row = store.sessions.byKey(KEY);
      expect(row?.sessionId).toBe(sessionId);
      expect(row?.compactionCount).toBe(1);
    });
  });

  it("re-imports an existing session as a copy with --new-id, leaving the original's key alone", async () => {
    const { home, sessionId } = homeWithSession();
    const file = join(home, "s.jsonl");
    await runCli(["--home", home, "sessions", "export", sessionId, "-o", file]);
    const refused = await runCli(["--home", home, "sessions", "import", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`session ${sessionId} already exists`);
    expect(refused.stderr).toContain("--new-id");
    const copy = await runCli(["--home", home, "sessions", "import", file, "--new-id"]);
    expect(copy.code).toBe(0);
    const match = /imported (\S+) as (\S+) \(3 entries\)/.exec(copy.stdout);
    expect(match?.[1]).not.toBe(sessionId);
    expect(match?.[2]).toBe(`agent:main:import:direct:${match?.[1]}`);
    readStore(home, (store) => {
      expect(store.sessions.byKey(KEY)?.sessionId).toBe(sessionId);
      expect(store.sessions.get(match?.[1] ?? "")?.compactionCount).toBe(1);
    });
  });

  it("refuses an entry of the wrong shape, naming its line, and stores nothing", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-sess-"));
    const file = join(home, "bad.jsonl");
    const lines = [
      { type: "session", version: 3, id: "s-1", timestamp: "2026-01-01T00:00:00Z", cwd: "" },
      {
        type: "message",
        id: "e1",
        parentId: null,
        timestamp: "2026-01-01T00:00:01Z",
        message: { role: "user", content: "hi", timestamp: 1 },
      },
      {
        type: "message",
        id: "e2",
        parentId: "e1",
        timestamp: "2026-01-01T00:00:02Z",
        message: { role: "user", content: 42, timestamp: 2 },
      },
    ];
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const run = await runCli(["--home", home, "sessions", "import", file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("bad.jsonl:3: invalid entry: message.content");
    expect(readStore(home, (s) => s.sessions.list())).toHaveLength(0);
  });

  it("export -o into a missing folder says so in one line, no stack trace", async () => {
    const { home, sessionId } = homeWithSession();
    const target = join(home, "missing", "dir", "x.jsonl");
    const run = await runCli(["--home", home, "sessions", "export", sessionId, "-o", target]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`-o ${target}: cannot write the file (its folder does not exist)`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("clawbox context list without --session", () => {
  it("reports the default CLI session, not a fresh one", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-sess-"));
    const store = Store.open({ path: join(home, "clawbox.db") });
    const session = store.sessions.create({ sessionKey: "agent:main:cli:direct:owner" });
    store.transcript.append(session.sessionId, {
      type: "message",
      message: { role: "user", content: "remember the porch light", timestamp: 1 },
    });
    store.close();
    const run = await runCli(["--home", home, "context", "list", "--json"]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { history: { messages: number } };
    expect(report.history.messages).toBe(1);
  });
});
