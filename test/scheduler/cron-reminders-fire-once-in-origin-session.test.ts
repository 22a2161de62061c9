import { afterEach, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/index.ts";
import { isClawboxError } from "../../src/errors/index.ts";
import {
  CronStore,
  createCronRunner,
  createDelivery,
  createScheduler,
  parseSchedule,
  runScheduledTurn,
  type TurnRunner,
} from "../../src/scheduler/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const OWNER_KEY = "agent:main:cli:direct:owner";
const owner = { channel: "cli", chatType: "direct" as const, senderId: "cli" };
const cronConfig = configSchema.parse({}).cron;

function setup(script: Parameters<typeof createFakeProvider>[0]["script"]) {
  const provider = createFakeProvider({ script });
  const scheduler = { current: undefined as ReturnType<typeof createScheduler> | undefined };
  harness = createHarness({ providers: { fake: provider } });
  const h = harness;
  const made = createScheduler({
    config: h.config,
    store: h.store,
    workspace: h.paths.workspace,
    logger: silentLogger,
  });
  scheduler.current = made;
  return { provider, h, scheduler: made };
}

function runner(h: Harness, clock: { t: number }, agent: TurnRunner = h.agent) {
  const delivery = createDelivery(silentLogger);
  return createCronRunner({
    store: new CronStore(h.store.db),
    config: cronConfig,
    logger: silentLogger,
    runTurn: (turn) => runScheduledTurn(agent, delivery, turn),
    now: () => clock.t,
  });
}

async function settle(r: ReturnType<typeof createCronRunner>) {
  await r.close();
}

/** One start of a runner at time `t` (what `clawbox run` does at start), run to the end. */
async function startAt(h: Harness, t: number) {
  const r = runner(h, { t });
  r.start();
  await settle(r);
}

describe("cron reminders", () => {
  it("added by the agent's cron tool, a reminder fires once as a turn in its origin session", async () => {
    const { provider, h, scheduler } = setup([
      {
        toolCalls: [
          {
            name: "cron",
            arguments: { action: "add", text: "take the bins out", at: "in 2 seconds" },
          },
        ],
      },
      { text: "Reminder set." },
      { text: "Time to take the bins out!" },
    ]);
    // The harness agent has no scheduler tools; give them through a second agent turn path.
    const { createAgent } = await import("../../src/agent/index.ts");
    const agent = createAgent({
      config: h.config,
      store: h.store,
      paths: h.paths,
      logger: silentLogger,
      providers: { fake: provider },
      tools: scheduler.tools,
    });
    const added = await agent.chat({
      ...owner,
      sessionKey: OWNER_KEY,
      text: "remind me in 2 seconds to take the bins out",
    });
    expect(added.reply).toBe("Reminder set.");
    const [job] = scheduler.jobs.list();
    expect(job).toMatchObject({ sessionKey: OWNER_KEY, text: "take the bins out", origin: owner });
    const clock = { t: (job?.nextRunAt ?? 0) + 500 };
    const r = runner(h, clock, agent);
    r.start();
    await settle(r);
    // A second pass (another start, later) fires nothing more.
    clock.t += 60_000;
    const again = runner(h, clock, agent);
    again.start();
    await settle(again);
    await agent.close();
    expect(provider.requests).toHaveLength(3);
    const texts = h.messages(OWNER_KEY).map((m) => JSON.stringify(m.content));
    expect(
      texts.filter((t) => t.includes("take the bins out") && t.includes("Scheduled reminder")),
    ).toHaveLength(1);
    expect(texts.at(-1)).toContain("Time to take the bins out!");
    expect(new CronStore(h.store.db).runs(job?.id)).toMatchObject([{ status: "ok" }]);
    expect(scheduler.jobs.list()).toHaveLength(0);
  });

  it("a job missed by more than cron.catchUp is recorded as missed without a model call", async () => {
    const { provider, h, scheduler } = setup([]);
    const t0 = Date.now();
    const job = scheduler.jobs.add(
      { sessionKey: OWNER_KEY, text: "water the plants", at: "in 5 minutes", origin: owner },
      t0,
    );
    await startAt(h, t0 + 5 * 60_000 + 2 * 3_600_000);
    expect(provider.requests).toHaveLength(0);
    const [run] = new CronStore(h.store.db).runs(job.id);
    expect(run?.status).toBe("missed");
    expect(run?.detail).toContain("over cron.catchUp 1h");
  });

  it("a job missed by less than cron.catchUp runs once at start", async () => {
    const { provider, h, scheduler } = setup([{ text: "Plants!" }]);
    const t0 = Date.now();
    const job = scheduler.jobs.add(
      { sessionKey: OWNER_KEY, text: "water the plants", at: "in 5 minutes", origin: owner },
      t0,
    );
    await startAt(h, t0 + 5 * 60_000 + 20 * 60_000);
    expect(provider.requests).toHaveLength(1);
    expect(JSON.stringify(provider.requests[0]?.messages)).toContain(
      "delivered late after a restart",
    );
    expect(new CronStore(h.store.db).runs(job.id)).toMatchObject([{ status: "ok" }]);
  });

  it("a run a killed process left mid-turn is retried once at the next start, then never again", async () => {
    const { provider, h, scheduler } = setup([{ text: "Retried." }, { text: "Twice?!" }]);
    const t0 = Date.now();
    const job = scheduler.jobs.add(
      { sessionKey: OWNER_KEY, text: "call mum", at: "in 1 minute", origin: owner },
      t0,
    );
    const store = new CronStore(h.store.db);
    // What a process killed after claiming leaves behind.
    expect(store.claim(job, undefined, "running", t0 + 60_000)).toBe(true);
    for (let i = 0; i < 2; i++) await startAt(h, t0 + 61_000);
    expect(provider.requests).toHaveLength(1);
    expect(store.runs(job.id)).toMatchObject([{ status: "ok", attempts: 2 }]);
  });

  it("a retry that was itself killed is not tried a third time", async () => {
    const { provider, h, scheduler } = setup([{ text: "third time?!" }]);
    const t0 = Date.now();
    const job = scheduler.jobs.add(
      { sessionKey: OWNER_KEY, text: "call mum", at: "in 1 minute", origin: owner },
      t0,
    );
    const store = new CronStore(h.store.db);
    expect(store.claim(job, undefined, "running", t0 + 60_000)).toBe(true);
    // First restart takes it up again, and that process is killed mid-turn too.
    expect(store.takeInterrupted(t0 + 61_000).map((r) => r.jobId)).toEqual([job.id]);
    expect(store.claimRetry(job.id, t0 + 60_000, t0 + 61_000)).toBe(true);
    await startAt(h, t0 + 62_000);
    expect(provider.requests).toHaveLength(0);
    expect(store.runs(job.id)).toMatchObject([{ status: "interrupted", attempts: 2 }]);
  });

  it("two processes restarting at once: the retry is claimed once, never a third time", async () => {
    const { provider, h, scheduler } = setup([{ text: "third time?!" }]);
    const t0 = Date.now();
    const job = scheduler.jobs.add(
      { sessionKey: OWNER_KEY, text: "call mum", at: "in 1 minute", origin: owner },
      t0,
    );
    const store = new CronStore(h.store.db);
    expect(store.claim(job, undefined, "running", t0 + 60_000)).toBe(true);
    // Both restarted processes list the interrupted run; the first claims the retry.
    const seenByA = store.takeInterrupted(t0 + 61_000);
    const seenByB = store.takeInterrupted(t0 + 61_000);
    expect(seenByA.map((r) => r.jobId)).toEqual([job.id]);
    expect(seenByB.map((r) => r.jobId)).toEqual([job.id]);
    expect(store.claimRetry(job.id, t0 + 60_000, t0 + 61_000)).toBe(true);
    // A's retry is killed mid-turn too; B, late with its list, must not try a third time.
    store.takeInterrupted(t0 + 62_000);
    expect(store.claimRetry(job.id, t0 + 60_000, t0 + 62_000)).toBe(false);
    await startAt(h, t0 + 63_000);
    expect(provider.requests).toHaveLength(0);
    expect(store.runs(job.id)).toMatchObject([{ status: "interrupted", attempts: 2 }]);
  });

  it("an every-job moves on to its next time after each run", async () => {
    const { h, scheduler } = setup([{ text: "one" }, { text: "two" }]);
    const t0 = Date.now();
    const job = scheduler.jobs.add(
      { sessionKey: OWNER_KEY, text: "stretch", every: "30 minutes", origin: owner },
      t0,
    );
    await startAt(h, t0 + 30 * 60_000);
    expect(scheduler.jobs.list()[0]?.nextRunAt).toBe(t0 + 60 * 60_000);
    expect(new CronStore(h.store.db).runs(job.id)).toHaveLength(1);
  });

  it("a daily 07:00 reminder in a time zone fires at 07:00 there on three days in a row", async () => {
    // A zone whose clock differs from this machine's, as for a box left on UTC in Shanghai.
    const offsetOf = (zone: string, t: number) =>
      new Date(new Date(t).toLocaleString("en-US", { timeZone: zone })).getTime() -
      new Date(new Date(t).toLocaleString("en-US")).getTime();
    const t0 = Date.UTC(2026, 2, 10, 12, 0);
    const zone = ["Asia/Shanghai", "America/Sao_Paulo"].find((z) => offsetOf(z, t0) !== 0) ?? "";
    const local = (t: number) =>
      new Intl.DateTimeFormat("en-CA", {
        timeZone: zone,
        dateStyle: "short",
        timeStyle: "short",
        hourCycle: "h23",
      }).format(t);
    const { provider, h, scheduler } = setup(() => ({ text: "Good morning!" }));
    const job = scheduler.jobs.add(
      {
        sessionKey: OWNER_KEY,
        text: "good morning",
        cron: "0 7 * * *",
        timezone: zone,
        origin: owner,
      },
      t0,
    );
    for (let day = 0; day < 3; day++)
      await startAt(h, (scheduler.jobs.list()[0]?.nextRunAt ?? 0) + 1_000);
    const runs = new CronStore(h.store.db)
      .runs(job.id)
      .sort((a, b) => a.scheduledFor - b.scheduledFor);
    expect(runs.map((r) => local(r.scheduledFor))).toEqual([
      "2026-03-11, 07:00",
      "2026-03-12, 07:00",
      "2026-03-13, 07:00",
    ]);
    expect(runs.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(provider.requests).toHaveLength(3);
  });

  it("refuses bad schedules and too many jobs with errors that say what to write", () => {
    const now = Date.now();
    const bad = (input: Parameters<typeof parseSchedule>[0], words: RegExp) => {
      let error: unknown;
      try {
        parseSchedule(input, now);
      } catch (e) {
        error = e;
      }
      expect(isClawboxError(error, "TOOL_INVALID_ARGS")).toBe(true);
      expect((error as Error).message).toMatch(words);
    };
    bad({ cron: "61 * * * *" }, /cron: bad expression "61 \* \* \* \*".*minute/);
    bad({ cron: "0 7 * * *", timezone: "Mars/Olympus" }, /unknown time zone "Mars\/Olympus"/);
    bad({ every: "30s" }, /under the 1-minute minimum/);
    bad({ cron: "* * * * * *" }, /more often than once a minute/);
    bad({ at: "next tuesday-ish" }, /at: not a time.*in 20 minutes/);
    bad({ at: "2001-01-01T00:00" }, /in the past/);
    bad({ at: "in 5 minutes", every: "1h" }, /exactly one of at, every or cron/);
    expect(
      parseSchedule({ cron: "0 7 * * *", timezone: "Asia/Shanghai" }, now).schedule.timezone,
    ).toBe("Asia/Shanghai");

    const { scheduler } = setup([]);
    const limit = cronConfig.maxJobsPerSession;
    for (let i = 0; i < limit; i++)
      scheduler.jobs.add({ sessionKey: OWNER_KEY, text: `job ${i}`, every: "1h", origin: owner });
    expect(() =>
      scheduler.jobs.add({ sessionKey: OWNER_KEY, text: "one more", every: "1h", origin: owner }),
    ).toThrow(/already has 20 reminders \(cron.maxJobsPerSession\)/);
    // Another session is not limited by this one's jobs.
    expect(
      scheduler.jobs.add({
        sessionKey: "agent:main:cli:direct:other",
        text: "x",
        every: "1h",
        origin: owner,
      }).id,
    ).toHaveLength(8);
  });

  it("the cron tool is never offered to a non-owner, and removes only the chat's own jobs", async () => {
    const ids = { job: "" };
    const steps = [
      { toolCalls: [{ name: "cron", arguments: { action: "list" } }] },
      { text: "no" },
      () => ({ toolCalls: [{ name: "cron", arguments: { action: "remove", id: ids.job } }] }),
      { text: "done" },
    ];
    const { provider, h, scheduler } = setup((_request, call) => {
      const step = steps[call] ?? { text: "ok" };
      return typeof step === "function" ? step() : step;
    });
    const { createAgent } = await import("../../src/agent/index.ts");
    const agent = createAgent({
      config: configSchema.parse({
        models: { primary: "fake", fallbacks: [], providers: {} },
        agent: { owners: ["cli", "qq:OWNER"] },
        // Strangers in this group may use every tool the policy allows: only ownerOnly stops cron.
        tools: { byChannel: { "qq:group:G1": { strangers: {} } } },
      }),
      store: h.store,
      paths: h.paths,
      logger: silentLogger,
      providers: { fake: provider },
      tools: scheduler.tools,
    });
    ids.job = scheduler.jobs.add({
      sessionKey: OWNER_KEY,
      text: "private",
      every: "1h",
      origin: owner,
    }).id;
    await agent.chat({
      sessionKey: "agent:main:qq:group:G1",
      text: "list reminders",
      channel: "qq",
      chatType: "group",
      groupId: "G1",
      senderId: "qq:STRANGER",
    });
    expect(provider.requests[0]?.tools.map((t) => t.name)).not.toContain("cron");
    const denied = h.messages("agent:main:qq:group:G1").find((m) => m.role === "toolResult");
    expect(JSON.stringify(denied)).toContain("TOOL_DENIED");
    expect(JSON.stringify(denied)).not.toContain("private");

    await agent.chat({
      sessionKey: "agent:main:qq:direct:OWNER",
      text: "remove it",
      channel: "qq",
      chatType: "direct",
      senderId: "qq:OWNER",
    });
    expect(provider.requests[2]?.tools.map((t) => t.name)).toContain("cron");
    const refused = h.messages("agent:main:qq:direct:OWNER").find((m) => m.role === "toolResult");
    expect(JSON.stringify(refused)).toContain(`no reminder \\"${ids.job}\\" in this chat`);
    expect(scheduler.jobs.list().map((j) => j.id)).toContain(ids.job);
    await agent.close();
  });
});

describe("claiming a due time", () => {
  it("two processes that both saw a job due: only the first claim fires it", async () => {
    const { h, scheduler } = setup([]);
    const t0 = Date.now();
    scheduler.jobs.add(
      { sessionKey: OWNER_KEY, text: "once", at: "in 1 minute", origin: owner },
      t0,
    );
    const { Store } = await import("../../src/store/index.ts");
    const other = Store.open({ path: h.store.path });
    try {
      const mine = new CronStore(h.store.db);
      const theirs = new CronStore(other.db);
      const [seenByMe] = mine.due(t0 + 61_000);
      const [seenByThem] = theirs.due(t0 + 61_000);
      if (!seenByMe || !seenByThem) throw new Error("job not due");
      expect(mine.claim(seenByMe, undefined, "running", t0 + 61_000)).toBe(true);
      expect(theirs.claim(seenByThem, undefined, "running", t0 + 61_000)).toBe(false);
      expect(mine.runs(seenByMe.id)).toHaveLength(1);
    } finally {
      other.close();
    }
  });
});
