/**
 * memory_search from a voice room (docs/SECURITY.md, "Voice rooms"): the household finds
 * what was said in any of its rooms (memory shared between rooms, with
 * `memory.sessions.enabled`), never the owner's memory files (MEMORY.md, memory/*.md)
 * nor the owner's conversations. The owner still finds both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../src/messages/index.ts";
import { HOUSEHOLD, OWNER } from "../../src/sessions/index.ts";
import { type MemoryTestEnv, memoryTestEnv } from "../fixtures/memory-test-env.ts";

let env: MemoryTestEnv;
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });

beforeAll(() => {
  env = memoryTestEnv();
  env.write("MEMORY.md", "# Memory\n\n- The safe code is zanzibar 4411.\n");
  env.write("memory/2026-12-01.md", "# Notes\n\n- The zanzibar safe is behind the painting.\n");
  const room = (key: string, principal: string, text: string) => {
    const { sessionId } = env.store.sessions.create({
      sessionKey: key,
      chatType: "direct",
      principal,
    });
    env.store.transcript.append(sessionId, { type: "message", message: user(text) });
  };
  room(
    "agent:main:wyoming:direct:assist_satellite.kitchen",
    HOUSEHOLD,
    "The zanzibar tea is in the kitchen cupboard",
  );
  room("agent:main:qq:direct:OWNER", OWNER, "The zanzibar bank login is in the drawer");
});
afterAll(() => env.cleanup());

describe("memory search in a voice room", () => {
  it("finds the household's rooms, never the owner's files or conversations", async () => {
    const memory = env.memory(null, { sessions: { enabled: true } });
    const household = await memory.search("zanzibar", { principal: HOUSEHOLD });
    const paths = household.results.map((r) => r.path);
    expect(household.results.map((r) => r.snippet).join("\n")).toContain("kitchen cupboard");
    expect(paths.some((p) => p.includes("MEMORY.md") || p.startsWith("memory/"))).toBe(false);
    expect(household.results.map((r) => r.snippet).join("\n")).not.toMatch(/safe|bank/);
    const owner = await memory.search("zanzibar", { principal: OWNER });
    const ownerText = owner.results.map((r) => `${r.path} ${r.snippet}`).join("\n");
    expect(ownerText).toContain("MEMORY.md");
    expect(ownerText).toContain("bank login");
  });
});
