import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Agent } from "../../src/agent/index.ts";
import {
  createDelivery,
  createHeartbeat,
  createScheduler,
  runScheduledTurn,
} from "../../src/scheduler/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { seedWorkspace } from "../../src/workspace/index.ts";
import { createHarness, type Harness, ownerRequest } from "../agent/agent-harness.ts";
import { createFakeProvider, type FakeScript } from "../fakes/fake-provider.ts";

let harness: Harness | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await harness?.close();
  harness = undefined;
});

const HEARTBEAT_KEY = "agent:main:heartbeat";
const TASK = "# HEARTBEAT.md\n\n- Check whether the garage door is open; tell me if it is.\n";

function setup(script: FakeScript, config: Record<string, unknown> = {}) {
  const provider = createFakeProvider({ script });
  harness = createHarness({ providers: { fake: provider }, engine: "real", config });
  seedWorkspace(harness.paths.workspace);
  return { provider, h: harness };
}

function heartbeat(
  h: Harness,
  agent: Agent = h.agent,
  extra: { now?: () => number; keepSessions?: number } = {},
) {
  const delivery = createDelivery(silentLogger);
  const beat = createHeartbeat({
    config: h.config,
    store: h.store,
    workspace: h.paths.workspace,
    logger: silentLogger,
    runTurn: (turn) => runScheduledTurn(agent, delivery, turn),
    activeRuns: () => agent.activeRuns(),
    sessions: createSessionResolver(h.config.agent),
    pollMs: 20,
    ...extra,
  });
  closers.push(() => beat.close());
  return beat;
}

/** The runtime's scheduler (default delivery: the channel outbox), started on the harness agent. */
function startScheduler(h: Harness) {
  const scheduler = createScheduler({
    config: h.config,
    store: h.store,
    workspace: h.paths.workspace,
    logger: silentLogger,
  });
  scheduler.start(h.agent);
  closers.push(() => scheduler.close());
  return scheduler;
}

const userCount = (messages: { role: string }[]) =>
  messages.filter((m) => m.role === "user").length;

describe("heartbeat", () => {
  it("makes no model call while HEARTBEAT.md is effectively empty (the seeded default)", async () => {
    const { provider, h } = setup([{ text: "should not be asked" }]);
    const result = await heartbeat(h).beat();
    expect(result).toEqual({ status: "skipped", reason: "empty" });
    expect(provider.requests).toHaveLength(0);
  });

  it("runs light: its own fresh session each beat, no history, heartbeat tool policy; HEARTBEAT_OK is silent", async () => {
    const { provider, h } = setup((request) =>
      JSON.stringify(request.messages).includes("[Heartbeat]")
        ? { text: "HEARTBEAT_OK all quiet" }
        : { text: "ok" },
    );
    // A long owner history that must not leak into the heartbeat.
    for (let i = 0; i < 3; i++) await h.agent.chat(ownerRequest(`owner message ${i}`));
    provider.requests.length = 0;
    writeFileSync(join(h.paths.workspace, "HEARTBEAT.md"), TASK);
    const beat = heartbeat(h);
    const first = await beat.beat();
    const second = await beat.beat();
    expect(first).toMatchObject({ status: "ran", outcome: { ok: true, silent: true } });
    expect(second).toMatchObject({ status: "ran", outcome: { ok: true, silent: true } });
    expect(provider.requests).toHaveLength(2);
    for (const request of provider.requests) {
      expect(userCount(request.messages)).toBe(1);
      expect(JSON.stringify(request.messages)).toContain("garage door");
      expect(JSON.stringify(request.messages)).not.toContain("owner message");
      const tools = request.tools.map((t) => t.name);
      expect(tools).toContain("read");
      expect(tools).not.toContain("exec");
      // Minimal prompt: no skills / heartbeat / messaging sections of the full prompt.
      expect(request.systemPrompt).not.toContain("## Heartbeats");
    }
    expect(h.store.sessions.byKey(HEARTBEAT_KEY)).toBeDefined();
    const heartbeatSessions = h.store.db
      .query("SELECT COUNT(*) AS n FROM sessions WHERE session_key = ?")
      .get(HEARTBEAT_KEY) as { n: number };
    expect(heartbeatSessions.n).toBe(2);
  });

  it("keeps only the newest beats' sessions, with their transcripts; other sessions stay", async () => {
    const { h } = setup(() => ({ text: "HEARTBEAT_OK" }));
    await h.agent.chat(ownerRequest("the owner's own conversation"));
    writeFileSync(join(h.paths.workspace, "HEARTBEAT.md"), TASK);
    const beat = heartbeat(h, h.agent, { keepSessions: 2 });
    for (let i = 0; i < 5; i++) expect(await beat.beat()).toMatchObject({ status: "ran" });
    const key = HEARTBEAT_KEY;
    const kept = h.store.db
      .query("SELECT session_id FROM sessions WHERE session_key = ? ORDER BY created_at, rowid")
      .all(key) as { session_id: string }[];
    expect(kept).toHaveLength(2);
    // The key points at the newest beat; deleted beats left no transcript rows behind.
    expect(h.store.sessions.byKey(key)?.sessionId).toBe(kept[1]?.session_id);
    const orphans = h.store.db
      .query(
        "SELECT COUNT(*) AS n FROM transcript_entries WHERE session_id NOT IN (SELECT session_id FROM sessions)",
      )
      .get() as { n: number };
    expect(orphans.n).toBe(0);
    expect(h.store.transcript.count(kept[1]?.session_id ?? "")).toBeGreaterThan(0);
    const owners = h.store.sessions.list().filter((s) => s.sessionKey !== key);
    expect(owners).toHaveLength(1);
    expect(owners[0]?.messageCount).toBe(2);
  });

  it("delivers a real finding to heartbeat.target through the channel outbox", async () => {
    const { h } = setup([{ text: "The garage door is open!" }], {
      heartbeat: { target: "qq:direct:OWNER_OPENID" },
      channels: { qq: { appId: "app", clientSecret: "secret" } },
    });
    writeFileSync(join(h.paths.workspace, "HEARTBEAT.md"), TASK);
    const scheduler = startScheduler(h);
    const result = await scheduler.heartbeat()?.beat();
    expect(result).toMatchObject({
      status: "ran",
      outcome: { ok: true, detail: "queued to qq:direct:OWNER_OPENID" },
    });
    const rows = h.store.db
      .query("SELECT channel, chat_type, peer_id, body FROM channel_outbox")
      .all() as { channel: string; chat_type: string; peer_id: string; body: string }[];
    expect(rows).toEqual([
      {
        channel: "qq",
        chat_type: "direct",
        peer_id: "OWNER_OPENID",
        body: expect.stringContaining("garage door is open"),
      },
    ]);
  });

  it("a HEARTBEAT_OK reply is not delivered anywhere", async () => {
    const { h } = setup([{ text: "HEARTBEAT_OK" }], {
      heartbeat: { target: "qq:direct:OWNER_OPENID" },
      channels: { qq: { appId: "app", clientSecret: "secret" } },
    });
    writeFileSync(join(h.paths.workspace, "HEARTBEAT.md"), TASK);
    const scheduler = startScheduler(h);
    await scheduler.heartbeat()?.beat();
    const rows = h.store.db.query("SELECT COUNT(*) AS n FROM channel_outbox").get() as {
      n: number;
    };
    expect(rows.n).toBe(0);
  });

  it("HEARTBEAT_OK with a note of exactly 300 characters stays silent; 301 is delivered", async () => {
    const note = (n: number) => `All quiet. ${"z".repeat(n - 11)}`;
    const { h } = setup(
      [{ text: `HEARTBEAT_OK ${note(300)}` }, { text: `HEARTBEAT_OK ${note(301)}` }],
      {
        heartbeat: { target: "qq:direct:OWNER_OPENID" },
        channels: { qq: { appId: "app", clientSecret: "secret" } },
      },
    );
    writeFileSync(join(h.paths.workspace, "HEARTBEAT.md"), TASK);
    const scheduler = startScheduler(h);
    const bodies = () =>
      (h.store.db.query("SELECT body FROM channel_outbox").all() as { body: string }[]).map(
        (r) => r.body,
      );
    await scheduler.heartbeat()?.beat();
    expect(bodies()).toEqual([]);
    await scheduler.heartbeat()?.beat();
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]).toContain(note(301));
    expect(bodies()[0]).not.toContain("HEARTBEAT_OK");
  });

  it("never runs two beats at once", async () => {
    const { provider, h } = setup([{ text: "HEARTBEAT_OK", delayMs: 30, chunkSize: 1 }]);
    writeFileSync(join(h.paths.workspace, "HEARTBEAT.md"), TASK);
    const beat = heartbeat(h);
    const [a, b] = await Promise.all([beat.beat(), beat.beat()]);
    expect(a.status).toBe("ran");
    expect(b).toEqual({ status: "skipped", reason: "already-running" });
    expect(provider.requests).toHaveLength(1);
  });

  it("waits until the owner's turn has finished before it starts", async () => {
    const seenActive: number[] = [];
    const { provider, h } = setup((request) => {
      if (JSON.stringify(request.messages).includes("[Heartbeat]")) {
        seenActive.push(h.agent.activeRuns());
        return { text: "HEARTBEAT_OK" };
      }
      return { text: "a slow owner answer", chunkSize: 1, delayMs: 20 };
    });
    writeFileSync(join(h.paths.workspace, "HEARTBEAT.md"), TASK);
    const owner = h.agent.chat(ownerRequest("hello"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const result = await heartbeat(h).beat();
    expect((await owner).reply).toBe("a slow owner answer");
    expect(result.status).toBe("ran");
    expect(seenActive).toEqual([1]); // only the heartbeat itself ran then
    expect(provider.requests).toHaveLength(2);
  });

  it("yields to an owner turn that starts while it runs, then runs again when idle", async () => {
    let heartbeatCalls = 0;
    const { h } = setup((request) => {
      if (JSON.stringify(request.messages).includes("[Heartbeat]")) {
        heartbeatCalls += 1;
        return heartbeatCalls === 1
          ? { text: "a long heartbeat thought that gets interrupted", chunkSize: 1, delayMs: 20 }
          : { text: "HEARTBEAT_OK" };
      }
      return { text: "owner answered", chunkSize: 2, delayMs: 20 };
    });
    writeFileSync(join(h.paths.workspace, "HEARTBEAT.md"), TASK);
    const beat = heartbeat(h).beat();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const owner = await h.agent.chat(ownerRequest("urgent"));
    const result = await beat;
    expect(owner.reply).toBe("owner answered");
    expect(heartbeatCalls).toBe(2);
    expect(result).toMatchObject({ status: "ran", outcome: { ok: true, silent: true } });
  });

  it("is skipped outside heartbeat.activeHours, in the agent time zone", async () => {
    const { provider, h } = setup([{ text: "HEARTBEAT_OK" }], {
      agent: { timezone: "Asia/Shanghai" },
      heartbeat: { activeHours: { start: "08:00", end: "22:00" } },
    });
    writeFileSync(join(h.paths.workspace, "HEARTBEAT.md"), TASK);
    // 03:00 in Shanghai is 19:00 UTC the day before.
    const night = Date.parse("2026-12-01T19:00:00Z");
    const day = Date.parse("2026-12-02T02:00:00Z"); // 10:00 in Shanghai
    expect(await heartbeat(h, h.agent, { now: () => night }).beat()).toEqual({
      status: "skipped",
      reason: "inactive-hours",
    });
    expect(provider.requests).toHaveLength(0);
    expect((await heartbeat(h, h.agent, { now: () => day }).beat()).status).toBe("ran");
  });
});
