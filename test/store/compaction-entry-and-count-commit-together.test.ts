import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";

describe("a compaction entry and the session's compactionCount", () => {
  it("are written together: when counting fails, no entry is left behind", () => {
    const store = Store.open({ path: join(mkdtempSync(join(tmpdir(), "clawbox-cc-")), "c.db") });
    try {
      const session = store.sessions.create({ sessionKey: "agent:main:cli:direct:owner" });
      const first = store.transcript.append(session.sessionId, {
        type: "message",
        message: { role: "user", content: "hello", timestamp: 1 },
      });
      const input = { summary: "s", firstKeptEntryId: first.id, tokensBefore: 10 };
      store.transcript.appendCompaction(session.sessionId, input);
      expect(store.sessions.require(session.sessionId).compactionCount).toBe(1);

      // The card fails on the session update (a real SQLite error, raised by a trigger).
      store.db.run(
        "CREATE TRIGGER fail_count BEFORE UPDATE OF compaction_count ON sessions BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END",
      );
      expect(() => store.transcript.appendCompaction(session.sessionId, input)).toThrow(
        /disk I\/O error/,
      );
      const compactions = store.transcript
        .all(session.sessionId)
        .filter((e) => e.type === "compaction");
      expect(compactions).toHaveLength(1);
      expect(store.sessions.require(session.sessionId).compactionCount).toBe(1);
      expect(store.transcript.leafId(session.sessionId)).toBe(compactions[0]?.id);
    } finally {
      store.close();
    }
  });
});
