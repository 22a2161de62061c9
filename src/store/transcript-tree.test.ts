import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage, TranscriptEntry } from "../messages/index.ts";
import { Store } from "./index.ts";

const stores: Store[] = [];
function openTemp(): Store {
  const store = Store.open({
    path: join(mkdtempSync(join(tmpdir(), "clawbox-store-")), "clawbox.db"),
  });
  stores.push(store);
  return store;
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const assistant = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "fake",
  model: "fake",
  usage: { input: 10, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 13 },
  stopReason: "stop",
  timestamp: Date.now(),
});

const texts = (entries: TranscriptEntry[]) =>
  entries.map((e) => (e.type === "message" ? JSON.stringify(e.message.content) : e.type));

describe("transcript tree", () => {
  it("opens with WAL, sqlite-vec and FTS5, and passes the integrity check", () => {
    const store = openTemp();
    expect(
      (store.db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode,
    ).toBe("wal");
    expect(store.vecVersion).toMatch(/^v0\./);
    store.db.run("CREATE VIRTUAL TABLE t USING fts5(x)");
    expect(store.integrityCheck()).toBe("ok");
  });

  it("appends as children of the leaf and reads the active branch root-first", () => {
    const store = openTemp();
    const s = store.sessions.create({ sessionKey: "agent:main:cli:direct:owner" });
    const u1 = store.transcript.append(s.sessionId, {
      type: "message",
      message: { role: "user", content: "one", timestamp: 1 },
    });
    const a1 = store.transcript.append(s.sessionId, { type: "message", message: assistant("two") });
    expect(a1.parentId).toBe(u1.id);
    store.transcript.append(s.sessionId, {
      type: "message",
      message: { role: "user", content: "three", timestamp: 3 },
    });
    // Branch from the first answer: the next append forks the tree.
    store.transcript.setLeaf(s.sessionId, a1.id);
    store.transcript.append(s.sessionId, {
      type: "message",
      message: { role: "user", content: "three-b", timestamp: 4 },
    });
    expect(texts(store.transcript.branch(s.sessionId))).toEqual([
      '"one"',
      '[{"type":"text","text":"two"}]',
      '"three-b"',
    ]);
    expect(store.transcript.count(s.sessionId)).toBe(4);
  });

  it("reads only from the latest compaction's first kept entry onward", () => {
    const store = openTemp();
    const s = store.sessions.create({ sessionKey: "k" });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(
        store.transcript.append(s.sessionId, {
          type: "message",
          message: { role: "user", content: `m${i}`, timestamp: i },
        }).id,
      );
    }
    store.transcript.append(s.sessionId, {
      type: "compaction",
      summary: "earlier",
      firstKeptEntryId: ids[4] as string,
      tokensBefore: 100,
    });
    store.transcript.append(s.sessionId, {
      type: "message",
      message: { role: "user", content: "after", timestamp: 9 },
    });
    expect(texts(store.transcript.branch(s.sessionId, { fromLastCompaction: true }))).toEqual([
      '"m4"',
      '"m5"',
      "compaction",
      '"after"',
    ]);
  });

  it("records usage of assistant messages in columns", () => {
    const store = openTemp();
    const s = store.sessions.create({ sessionKey: "k" });
    store.transcript.append(s.sessionId, { type: "message", message: assistant("x") });
    const row = store.db
      .query("SELECT usage_input, usage_output, usage_total FROM transcript_entries")
      .get();
    expect(row).toEqual({ usage_input: 10, usage_output: 3, usage_total: 13 });
  });
});
