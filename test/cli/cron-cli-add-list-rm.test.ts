import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CronStore } from "../../src/scheduler/index.ts";
import { Store } from "../../src/store/index.ts";
import { runCli } from "../support/run-cli.ts";

const home = mkdtempSync(join(tmpdir(), "clawbox-cron-cli-"));
const env = { CLAWBOX_HOME: home };
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("clawbox cron", () => {
  it("adds, lists and removes reminders, as text and --json", async () => {
    const added = await runCli(
      ["cron", "add", "take", "the", "bins", "out", "--at", "in 20 minutes", "--json"],
      env,
    );
    expect(added.code).toBe(0);
    const job = JSON.parse(added.stdout) as {
      id: string;
      text: string;
      sessionKey: string;
      nextRunAt: number;
    };
    expect(job).toMatchObject({
      text: "take the bins out",
      sessionKey: "agent:main:cli:direct:owner",
    });
    expect(job.nextRunAt - Date.now()).toBeGreaterThan(19 * 60_000);

    const daily = await runCli(
      ["cron", "add", "good morning", "--cron", "0 7 * * *", "--tz", "Asia/Shanghai"],
      env,
    );
    expect(daily.code).toBe(0);
    expect(daily.stdout).toMatch(/^added \w{8} {2}cron "0 7 \* \* \*" \(Asia\/Shanghai\)/);
    // The next run is written in the job's zone, and says which one.
    expect(daily.stdout).toMatch(/ next \d{4}-\d{2}-\d{2} 07:00:00 Asia\/Shanghai /);
    const berlin = await runCli(
      ["cron", "add", "wake", "--cron", "0 6 * * *", "--tz", "Europe/Berlin", "--json"],
      env,
    );
    const berlinJob = JSON.parse(berlin.stdout) as { id: string };
    expect((await runCli(["cron", "list"], env)).stdout).toMatch(
      / next \d{4}-\d{2}-\d{2} 06:00:00 Europe\/Berlin /,
    );
    expect((await runCli(["cron", "rm", berlinJob.id], env)).code).toBe(0);

    const listed = JSON.parse((await runCli(["cron", "list", "--json"], env)).stdout) as {
      jobs: { id: string }[];
    };
    expect(listed.jobs.map((j) => j.id)).toContain(job.id);
    expect(listed.jobs).toHaveLength(2);

    const removed = await runCli(["cron", "rm", job.id], env);
    expect(removed.stdout).toContain(`removed ${job.id}`);
    expect((await runCli(["cron", "list"], env)).stdout).not.toContain("bins");
    const again = await runCli(["cron", "rm", job.id], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(`no reminder with id ${job.id}`);
  });

  it("list --runs names each run's reminder, one zoned time, and how it went out", async () => {
    const added = await runCli(
      ["cron", "add", "检查门廊摄像头", "--at", "in 5 minutes", "--json"],
      { ...env, CLAWBOX_CONFIG: "" },
    );
    const job = JSON.parse(added.stdout) as { id: string };
    // As the runner records a run that fired and stayed in the CLI's conversation.
    const store = Store.open({ path: join(home, "clawbox.db") });
    const cron = new CronStore(store.db);
    const stored = cron.get(job.id);
    if (!stored?.nextRunAt) throw new Error("no job");
    expect(cron.claim(stored, undefined, "running", stored.nextRunAt)).toBe(true);
    cron.finish(job.id, stored.nextRunAt, "ok", "stored in the cli session", stored.nextRunAt, {
      state: "stored",
    });
    store.close();
    const runs = await runCli(["cron", "list", "--runs"], env);
    const line = runs.stdout.split("\n").find((l) => l.startsWith(job.id)) ?? "";
    expect(line).toMatch(
      new RegExp(
        `^${job.id} {2}\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\S+ {2}delivered {2}"检查门廊摄像头" {2}stored in the cli session$`,
      ),
    );
    expect(runs.stdout).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it("refuses a bad expression, an unknown time zone and a too-short interval with clear errors", async () => {
    const badCron = await runCli(["cron", "add", "x", "--cron", "99 * * * *"], env);
    expect(badCron.code).not.toBe(0);
    expect(badCron.stderr).toContain('cron: bad expression "99 * * * *"');
    const badZone = await runCli(
      ["cron", "add", "x", "--cron", "0 7 * * *", "--tz", "Mars/Olympus"],
      env,
    );
    expect(badZone.stderr).toContain('unknown time zone "Mars/Olympus"');
    const tooOften = await runCli(["cron", "add", "x", "--every", "10s"], env);
    expect(tooOften.stderr).toContain("under the 1-minute minimum");
    const noText = await runCli(["cron", "add", "--every", "1h"], env);
    expect(noText.stderr).toContain("the reminder needs some text");
  });
});

describe('clawbox cron add with agent.directSessionMode "main"', () => {
  it("puts the reminder in the main session, where clawbox chat talks; a name means chat's named session", async () => {
    // Issue 22: it went to agent:main:cli:direct:owner, a session the owner never sees.
    const main = mkdtempSync(join(tmpdir(), "clawbox-cron-main-"));
    try {
      writeFileSync(
        join(main, "clawbox.json"),
        JSON.stringify({ agent: { directSessionMode: "main" } }),
      );
      const menv = { CLAWBOX_HOME: main };
      const added = await runCli(["cron", "add", "stretch", "--every", "1h", "--json"], menv);
      expect(added.code).toBe(0);
      expect(JSON.parse(added.stdout)).toMatchObject({ sessionKey: "agent:main:main" });
      const named = await runCli(
        ["cron", "add", "stir", "--every", "1h", "--session", "kitchen", "--json"],
        menv,
      );
      expect(JSON.parse(named.stdout)).toMatchObject({
        sessionKey: "agent:main:cli:direct:kitchen",
      });
      const bad = await runCli(["cron", "add", "x", "--every", "1h", "--session", "a b"], menv);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("--session");
    } finally {
      rmSync(main, { recursive: true, force: true });
    }
  });
});
