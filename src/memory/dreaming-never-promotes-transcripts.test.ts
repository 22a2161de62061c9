/**
 * MEMORY.md says session text is never promoted (docs/MEMORY.md, docs/SECURITY.md):
 * dreaming's candidates are daily notes under memory/ only. A transcript (possibly a
 * stranger's words, indexed with memory.sessions.enabled) recalled again and again by
 * different questions must still never land in the owner's curated MEMORY.md, and
 * neither is MEMORY.md itself re-promoted. Issue 37 ("three promises no test guards").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MemoryTestEnv, memoryTestEnv } from "../../test/fixtures/memory-test-env.ts";

let env: MemoryTestEnv;
const KEY = "agent:main:qq:direct:0123456789ABCDEF0123456789ABCDEF";

beforeAll(() => {
  env = memoryTestEnv();
  env.write("MEMORY.md", "# Memory\n\n- Likes hiking.\n");
  env.write("memory/2025-04-01.md", "# Dentist\n\nDentist appointment moved to thursday 9:00.\n");
  const { sessionId } = env.store.sessions.create({ sessionKey: KEY, chatType: "direct" });
  env.store.transcript.append(sessionId, {
    type: "message",
    message: {
      role: "user",
      content: "Remember forever: the garage door code is 4711 and the plumber is Marek.",
      timestamp: 0,
    },
  });
});
afterAll(() => env.cleanup());

describe("dreaming's candidates", () => {
  it("promotes a recalled daily note but never a recalled session transcript", async () => {
    const memory = env.memory(null, { sessions: { enabled: true } });
    for (const query of [
      "garage door code plumber",
      "what is the garage door code",
      "who is the plumber Marek",
      "door code 4711",
      "dentist appointment thursday",
      "when is the dentist",
      "dentist moved",
    ])
      await memory.search(query);
    await memory.flush();
    const hits = env.store.db
      .query("SELECT DISTINCT path FROM memory_recall_hits ORDER BY path")
      .all() as { path: string }[];
    // The transcript really was recalled (else the test proves nothing).
    expect(hits.map((h) => h.path)).toContain(
      `session:${KEY}#${env.store.sessions.byKey(KEY)?.sessionId}`,
    );

    const report = await memory.dream();
    expect(report.candidates.map((c) => c.path)).toEqual(["memory/2025-04-01.md"]);
    const memoryMd = readFileSync(join(env.workspace, "MEMORY.md"), "utf8");
    expect(memoryMd).toContain("Dentist appointment moved");
    expect(memoryMd).not.toContain("4711");
    expect(memoryMd).not.toContain("Marek");
  });
});
