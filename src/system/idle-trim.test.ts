import { afterEach, describe, expect, it } from "vitest";
import { createIdleTrimmer, type IdleTrimmer } from "./idle-trim.ts";
import { createLogger } from "./logger.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let trimmer: IdleTrimmer | undefined;
afterEach(() => trimmer?.close());

function setup(afterMs = 40, busyEveryMs?: number) {
  const steps: string[] = [];
  const lines: string[] = [];
  trimmer = createIdleTrimmer({
    afterMs,
    hooks: [
      () => steps.push("caches"),
      () => {
        throw new Error("database is locked");
      },
      () => steps.push("sqlite"),
    ],
    logger: createLogger({ level: "info", write: (line) => lines.push(line) }),
    collect: () => steps.push("gc"),
    ...(busyEveryMs !== undefined ? { busyEveryMs } : {}),
  });
  return { trimmer, steps, lines };
}

describe("idle trim", () => {
  it("trims once after the idle time, every hook then the collection, and logs a failing hook", async () => {
    const { trimmer, steps, lines } = setup();
    await sleep(200);
    expect(steps).toEqual(["caches", "sqlite", "gc"]);
    expect(trimmer.trims()).toBe(1);
    expect(lines.join("\n")).toContain("database is locked");
  });

  it("never trims while a task runs, and trims again only after new activity", async () => {
    const { trimmer, steps } = setup();
    let finish = () => {};
    const task = trimmer.track(new Promise<string>((resolve) => (finish = () => resolve("done"))));
    await sleep(200);
    expect(steps).toEqual([]);
    finish();
    expect(await task).toBe("done");
    await sleep(200);
    expect(trimmer.trims()).toBe(1);
    await sleep(200);
    expect(trimmer.trims()).toBe(1);
    await trimmer.track(sleep(1));
    await sleep(200);
    expect(trimmer.trims()).toBe(2);
  });

  it("passes a task's failure through and still counts the box idle afterwards", async () => {
    const { trimmer } = setup();
    await expect(trimmer.track(Promise.reject(new Error("model down")))).rejects.toThrow(
      "model down",
    );
    await sleep(200);
    expect(trimmer.trims()).toBe(1);
  });

  it("trims between back-to-back tasks once busyEveryMs has passed, never during one", async () => {
    const { trimmer, steps } = setup(60_000, 150);
    const during: number[] = [];
    const started = Date.now();
    while (Date.now() - started < 700) {
      await trimmer.track(
        (async () => {
          const before = trimmer.trims();
          await sleep(20);
          during.push(trimmer.trims() - before);
        })(),
      );
      await sleep(2);
    }
    // About one trim per 150 ms of back-to-back work, none while a task ran.
    expect(trimmer.trims()).toBeGreaterThanOrEqual(2);
    expect(trimmer.trims()).toBeLessThanOrEqual(5);
    expect(during.every((n) => n === 0)).toBe(true);
    expect(steps.filter((s) => s === "gc")).toHaveLength(trimmer.trims());
  });

  it("collects once after each task, after its result went out, once for tasks that end together", async () => {
    const collections: string[] = [];
    trimmer = createIdleTrimmer({
      afterMs: 60_000,
      hooks: [],
      collect: () => collections.push("trim"),
      collectAfterTasks: { collect: () => collections.push("gc") },
    });
    const first = await trimmer.track(sleep(1).then(() => "reply"));
    // The caller has the result before the collection runs.
    expect(first).toBe("reply");
    expect(collections).toEqual([]);
    await sleep(5);
    expect(collections).toEqual(["gc"]);
    await trimmer.track(sleep(1));
    await sleep(5);
    expect(collections).toEqual(["gc", "gc"]);
    // Two turns that end together (in one turn of the event loop: two timers of 1 ms can
    // fire in two turns on a loaded machine): one collection.
    const together = sleep(1);
    await Promise.all([trimmer.track(together), trimmer.track(together.then(() => "b"))]);
    await sleep(5);
    expect(collections).toEqual(["gc", "gc", "gc"]);
    expect(trimmer.trims()).toBe(0);
  });

  it("leaves the collection after a task to a trim that ran in the meantime, and none after close", async () => {
    const collections: string[] = [];
    let rss = 100;
    trimmer = createIdleTrimmer({
      afterMs: 60_000,
      hooks: [],
      collect: () => collections.push("trim"),
      collectAfterTasks: { collect: () => collections.push("gc") },
      rssBound: { growthBytes: 10, rss: () => rss },
    });
    rss = 120; // grown past the bound: this task's end trims, which collects as well
    await trimmer.track(sleep(1));
    await sleep(5);
    expect(collections).toEqual(["trim"]);
    await trimmer.track(sleep(1));
    trimmer.close();
    await sleep(5);
    expect(collections).toEqual(["trim"]);
  });

  it("trims between tasks once RSS grew by growthBytes since the last trim, never during one", async () => {
    let rss = 100;
    const trimmedAt: number[] = [];
    let inTask = false;
    trimmer = createIdleTrimmer({
      afterMs: 60_000,
      hooks: [],
      collect: () => {
        expect(inTask).toBe(false);
        trimmedAt.push(rss);
        rss -= 4; // what the trim gives back; the new base is what is left
      },
      rssBound: { growthBytes: 10, rss: () => rss },
    });
    const task = (grow: number) =>
      trimmer?.track(
        (async () => {
          inTask = true;
          await sleep(1);
          rss += grow;
          inTask = false;
        })(),
      );
    const settle = () => sleep(5);
    await task(6); // 106: +6
    await task(3); // 109: +9
    await settle();
    expect(trimmedAt).toEqual([]);
    await task(1); // 110: +10, trimmed to 106 once the result is out
    expect(trimmedAt).toEqual([]);
    await settle();
    expect(trimmedAt).toEqual([110]);
    await task(9); // 115: +9 over the new base
    await settle();
    expect(trimmedAt).toEqual([110]);
    await task(1); // 116: +10, trimmed to 112
    await settle();
    expect(trimmedAt).toEqual([110, 116]);
    // Past the bound again while another task still runs: nothing until the last one ends.
    let finishOther = () => {};
    const other = trimmer.track(new Promise<void>((resolve) => (finishOther = resolve)));
    await task(10); // 122: +10
    await settle();
    expect(trimmedAt).toEqual([110, 116]);
    finishOther();
    await other;
    await settle();
    expect(trimmedAt).toEqual([110, 116, 122]);
    expect(trimmer.trims()).toBe(3);
  });

  it("after a trim past the RSS bound, the idle trim waits for quiet again, never during the next task", async () => {
    let rss = 100;
    trimmer = createIdleTrimmer({
      afterMs: 40,
      hooks: [],
      collect: () => {},
      rssBound: { growthBytes: 10, rss: () => rss },
    });
    await trimmer.track(
      (async () => {
        await sleep(1);
        rss = 120;
      })(),
    );
    await sleep(5);
    expect(trimmer.trims()).toBe(1);
    const before = trimmer.trims();
    let during = 0;
    await trimmer.track(
      (async () => {
        await sleep(150);
        during = trimmer.trims() - before;
      })(),
    );
    expect(during).toBe(0);
  });

  it("does nothing after close", async () => {
    const { trimmer, steps } = setup();
    trimmer.close();
    await sleep(200);
    expect(steps).toEqual([]);
  });
});
