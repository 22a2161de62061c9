import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createFollowupExtractor,
  createScheduler,
  looksLikePromise,
} from "../../src/scheduler/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { seedWorkspace } from "../../src/workspace/index.ts";
import { createHarness, type Harness, ownerRequest } from "../agent/agent-harness.ts";
import { createFakeProvider, type FakeScript } from "../fakes/fake-provider.ts";
import { writeTinyGguf } from "../fixtures/tiny-gguf.ts";
import { runCli } from "../support/run-cli.ts";

let harness: Harness | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await harness?.close();
  harness = undefined;
});

const PROMISE =
  "The garage camera is dark right now. I'll check the camera again tonight at 21:00.";

function setup(script: FakeScript, config: Record<string, unknown> = {}) {
  const provider = createFakeProvider({ script });
  harness = createHarness({
    providers: { fake: provider },
    config: { followups: { enabled: true }, ...config },
  });
  const h = harness;
  seedWorkspace(h.paths.workspace);
  const scheduler = createScheduler({
    config: h.config,
    store: h.store,
    workspace: h.paths.workspace,
    logger: silentLogger,
  });
  const agent = scheduler.observe(h.agent);
  closers.push(() => scheduler.close());
  return { provider, h, scheduler, agent };
}

describe("follow-ups", () => {
  it("recognizes promise-shaped replies only", () => {
    expect(looksLikePromise(PROMISE)).toBe(true);
    expect(looksLikePromise("我会在明天早上再看一下摄像头。")).toBe(true);
    expect(looksLikePromise("The garage door is closed.")).toBe(false);
    expect(looksLikePromise("I'll do it.")).toBe(false); // no time: nothing to schedule
  });

  it("a promise in an owner's reply is extracted with a record_followups call and delivered at the next heartbeat after it is due", async () => {
    const { provider, h, scheduler, agent } = setup((request) => {
      const text = JSON.stringify(request.messages);
      if (request.tools.some((t) => t.name === "record_followups") && !text.includes("recorded"))
        return {
          toolCalls: [
            {
              name: "record_followups",
              arguments: { items: [{ text: "check the garage camera again", due: "in 1 minute" }] },
            },
          ],
        };
      if (text.includes("[Heartbeat]"))
        return { text: "Reminder: I promised to check the garage camera again." };
      if (request.tools.some((t) => t.name === "record_followups")) return { text: "done" };
      return { text: PROMISE };
    });
    const reply = await agent.chat(ownerRequest("Can you see the garage?"));
    expect(reply.reply).toBe(PROMISE);
    await (scheduler as unknown as { close(): Promise<void> }).close(); // waits for the extraction
    const extraction = provider.requests.find((r) =>
      r.tools.some((t) => t.name === "record_followups"),
    );
    expect(extraction?.tools.map((t) => t.name)).toEqual(["record_followups"]);
    expect(JSON.stringify(extraction?.messages)).toContain("check the camera again tonight");
    const [open] = scheduler.followups.list();
    expect(open).toMatchObject({
      text: "check the garage camera again",
      sessionKey: reply.sessionKey,
      state: "open",
    });

    // Not yet due: the (empty) heartbeat makes no call and delivers nothing.
    const second = createScheduler({
      config: h.config,
      store: h.store,
      workspace: h.paths.workspace,
      logger: silentLogger,
    });
    second.start(h.agent);
    closers.push(() => second.close());
    const before = provider.requests.length;
    expect(await second.heartbeat()?.beat()).toEqual({ status: "skipped", reason: "empty" });
    expect(provider.requests.length).toBe(before);

    // Once due, the next heartbeat runs (even with an empty HEARTBEAT.md) and marks it delivered.
    h.store.db.query("UPDATE followups SET due_at = ?").run(Date.now() - 1000);
    const beat = await second.heartbeat()?.beat();
    expect(beat).toMatchObject({
      status: "ran",
      followups: 1,
      outcome: { ok: true, silent: false },
    });
    expect(JSON.stringify(provider.requests.at(-1)?.messages)).toContain(
      "check the garage camera again",
    );
    expect(second.followups.list()).toHaveLength(0);
  });

  it("a stranger's turn or a reply without a promise starts no extraction", async () => {
    const { provider, scheduler, agent } = setup(() => ({ text: PROMISE }), {
      agent: { owners: ["cli"] },
    });
    await agent.chat({
      ...ownerRequest("hi"),
      senderId: "qq:STRANGER",
      channel: "qq",
      sessionKey: "agent:main:qq:direct:STRANGER",
    });
    await scheduler.close();
    expect(provider.requests).toHaveLength(1);
  });

  it("clawbox followups list and rm show and cancel them", async () => {
    const { h, scheduler } = setup(() => ({ text: "ok" }));
    const f = scheduler.followups.add({
      sessionKey: "agent:main:cli:direct:owner",
      text: "look at the porch camera",
      dueAt: Date.parse("2030-01-01T21:00:00Z"),
      origin: { channel: "cli", chatType: "direct", senderId: "cli" },
    });
    writeFileSync(
      join(h.paths.home, "clawbox.json"),
      JSON.stringify({ followups: { enabled: true } }),
    );
    const env = { CLAWBOX_HOME: h.paths.home };
    const listed = await runCli(["followups", "list", "--json"], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).followups).toMatchObject([
      { id: f.id, text: "look at the porch camera" },
    ]);
    expect((await runCli(["followups", "rm", String(f.id)], env)).stdout).toBe(
      `cancelled ${f.id}\n`,
    );
    expect((await runCli(["followups", "list"], env)).stdout).toBe("no open follow-ups\n");
    const again = await runCli(["followups", "rm", String(f.id)], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(`no open follow-up with id ${f.id}`);
  });

  it("on the local model (llama.cpp) the extraction is a grammar-constrained record_followups call that parses", {
    timeout: 180_000,
  }, async () => {
    // The project's random-weights GGUF with a 4096 window: the words are noise, but the
    // grammar makes the reply a well-formed call of the one offered tool.
    const dir = mkdtempSync(join(tmpdir(), "clawbox-followups-local-"));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const model = join(dir, "tiny.gguf");
    await writeTinyGguf(model, { contextLength: 4096 });
    const local = createHarness({
      engine: "real",
      config: {
        models: {
          primary: "local",
          fallbacks: [],
          providers: {
            local: { kind: "local", path: model, threads: 1, temperature: 0, maxTokens: 200 },
          },
        },
        agent: { maxIterations: 2 },
        followups: { enabled: true },
      },
    });
    closers.push(() => local.close());
    const scheduler = createScheduler({
      config: local.config,
      store: local.store,
      workspace: local.paths.workspace,
      logger: silentLogger,
    });
    const extractor = createFollowupExtractor({
      agent: local.agent,
      store: scheduler.followups,
      sessionStore: local.store.sessions,
      sessions: createSessionResolver(local.config.agent),
      logger: silentLogger,
    });
    extractor.observe(ownerRequest("garage?"), {
      sessionId: "s",
      sessionKey: "agent:main:cli:direct:owner",
      reply: PROMISE,
      silent: false,
    });
    await extractor.idle();
    const session = local.store.sessions.byKey("agent:main:followups");
    const calls = local.store.transcript
      .all(session?.sessionId ?? "")
      .flatMap((e) =>
        e.type === "message" && e.message.role === "assistant"
          ? e.message.content.filter((b) => b.type === "toolCall")
          : [],
      );
    expect(calls[0]?.type === "toolCall" && calls[0].name).toBe("record_followups");
    expect(calls[0]?.type === "toolCall" && typeof calls[0].arguments).toBe("object");
  });
});
