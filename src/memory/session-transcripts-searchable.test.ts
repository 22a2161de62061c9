import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MemoryTestEnv, memoryTestEnv } from "../../test/fixtures/memory-test-env.ts";
import type { Message } from "../messages/index.ts";
import { silentLogger } from "../system/index.ts";
import { MemoryIndex } from "./memory-index.ts";

let env: MemoryTestEnv;
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const KEY = "agent:main:qq:direct:OWNER";

function say(sessionId: string, message: Message): string {
  return env.store.transcript.append(sessionId, { type: "message", message }).id;
}
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });
const assistant = (text: string): Message => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "p",
  model: "m",
  usage,
  stopReason: "stop",
  timestamp: 0,
});

let sessionId: string;
let askedId: string;

beforeAll(() => {
  env = memoryTestEnv();
  env.write("MEMORY.md", "# Memory\n\n- Likes hiking.\n");
  sessionId = env.store.sessions.create({ sessionKey: KEY, chatType: "direct" }).sessionId;
  askedId = say(
    sessionId,
    user(
      "[turn channel: qq; sender: OWNER; time: 2025-05-01 09:00] Book the plumber for the leaking boiler",
    ),
  );
  say(sessionId, assistant("Noted: the plumber Marek comes on Thursday at ten."));
  say(sessionId, {
    role: "toolResult",
    toolCallId: "c1",
    toolName: "exec",
    content: [{ type: "text", text: "zanzibarquartz secret tool output" }],
    isError: false,
    timestamp: 0,
  });
});
afterAll(() => env.cleanup());

describe("session transcripts in memory search (memory.sessions.enabled)", () => {
  it("is off by default", async () => {
    const res = await env.memory(null).search("plumber boiler");
    expect(res.results.filter((r) => r.source === "session")).toEqual([]);
  });

  it("finds what was said, with the session key and entry ids, never tool output", async () => {
    const memory = env.memory(null, { sessions: { enabled: true } });
    const res = await memory.search("when does the plumber come for the boiler");
    const hit = res.results[0];
    expect(hit?.source).toBe("session");
    expect(hit?.sessionKey).toBe(KEY);
    expect(hit?.entryIds).toContain(askedId);
    expect(hit?.snippet).toContain("user: Book the plumber");
    expect(hit?.snippet).not.toContain("[turn");
    const tool = await memory.search("zanzibarquartz");
    expect(tool.results).toEqual([]);
  });

  it("re-indexes a session whose transcript changed, keeping its unchanged chunks", async () => {
    const memory = env.memory(null, { sessions: { enabled: true } });
    for (let i = 0; i < 60; i++)
      say(sessionId, user(`filler message number ${i} about the weather`));
    await memory.search("plumber");
    const before = env.store.db
      .query("SELECT rowid, id FROM memory_chunks WHERE path = ?")
      .all(`session:${KEY}#${sessionId}`) as { rowid: number; id: string }[];
    expect(before.length).toBeGreaterThan(1);
    expect((await memory.search("pomegranate")).results).toEqual([]);
    const pruneId = say(sessionId, assistant("The pomegranate tree needs pruning in March."));
    const res = await memory.search("pomegranate pruning");
    expect(res.results[0]?.source).toBe("session");
    expect(res.results[0]?.entryIds).toContain(pruneId);
    const after = env.store.db
      .query("SELECT rowid, id FROM memory_chunks WHERE path = ?")
      .all(`session:${KEY}#${sessionId}`) as { rowid: number; id: string }[];
    expect(after).toEqual(expect.arrayContaining([before[0]]));
  });
});

describe("MemoryIndex.syncSessions", () => {
  it("reads a session's transcript only when its version changed, and drops sessions that are gone", async () => {
    const index = new MemoryIndex({
      db: env.store.db,
      workspace: env.workspace,
      chunk: { tokens: 400, overlap: 80 },
      embedder: undefined,
      vectors: false,
      logger: silentLogger,
    });
    const rendered: string[] = [];
    const render = (id: string) => {
      rendered.push(id);
      return "user: hello there\n";
    };
    const snapshot = { sessionKey: "agent:main:cli:direct:x", sessionId: "s-x", version: "v1" };
    await index.syncSessions([snapshot], render);
    const again = await index.syncSessions([snapshot], render);
    expect(rendered).toEqual(["s-x"]);
    expect(again.changedFiles).toBe(0);
    await index.syncSessions([{ ...snapshot, version: "v2" }], render);
    expect(rendered).toEqual(["s-x", "s-x"]);
    const gone = await index.syncSessions([], render);
    expect(gone.removedFiles).toBeGreaterThanOrEqual(1);
    const left = env.store.db
      .query(
        "SELECT count(*) AS n FROM memory_chunks WHERE path = 'session:agent:main:cli:direct:x#s-x'",
      )
      .get() as { n: number };
    expect(left.n).toBe(0);
  });
});

describe("session index paths", () => {
  it("name one session by key and id, and read back only what they wrote", async () => {
    const { sessionIndexPath, parseSessionIndexPath } = await import("./session-transcripts.ts");
    const path = sessionIndexPath("agent:main:qq:direct:a#b", "id-1");
    expect(parseSessionIndexPath(path)).toEqual({
      sessionKey: "agent:main:qq:direct:a#b",
      sessionId: "id-1",
    });
    expect(parseSessionIndexPath("session:agent:main:qq:direct:x")).toBeUndefined();
    expect(parseSessionIndexPath("session:agent:main:qq:direct:x#")).toBeUndefined();
    expect(parseSessionIndexPath("memory/2025-01-31.md")).toBeUndefined();
  });
});
