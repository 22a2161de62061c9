/**
 * `npm run bench -- pairing-flood [--json] [--first N] [--more M]`: a real `clawbox run`
 * (the compiled dist/clawbox-linux-x64 when it exists, else bin/clawbox) on the fake QQ
 * platform, whose owner is a QQ user. N strangers (default 1,000), each with their own
 * openid, send the bot `/pair` in a direct chat, then M more (default 4,000). Reports the
 * service's VmRSS once the gateway has identified, after the first N have all been
 * answered, after the next M and after 15 s without messages, how many codes are pending (SQLite), and how many
 * notices the owner got on QQ. Issue 24: a flood neither grows memory nor spams the
 * owner (the pending set is capped at 10, one owner notice per 10 minutes); the
 * functional limits are asserted by test/channels/pairing-codes-bound-expiring-and-bounded.test.ts,
 * the memory figures are this benchmark's (no memory asserts in tests).
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fakeModelsSection } from "../../test/e2e/qq-run-support.ts";
import { openaiText, startFakeOpenAI } from "../../test/fakes/openai-server.ts";
import { FakeQqPlatform, waitUntil } from "../../test/fakes/qq-platform.ts";
import { type RunningService, startService } from "../../test/support/run-service.ts";
import { CLAWBOX_BIN } from "../../test/support/spawn-cli.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const numberArg = (flag: string, fallback: number) => {
  const at = args.indexOf(flag);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const first = numberArg("--first", 1000);
const more = numberArg("--more", 4000);
const log = (line: string) => {
  if (!json) console.log(line);
};

const OWNER = "FLOOD_BENCH_OWNER";
const root = resolve(import.meta.dir, "../..");
const compiled = join(root, "dist", "clawbox-linux-x64");
const binary = existsSync(compiled) ? compiled : CLAWBOX_BIN;

/** VmRSS and its anonymous part (heap; the rest is pages of files), in MB. */
const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (field: string) =>
    Math.round(
      (Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN) / 1024) * 10,
    ) / 10;
  return { rss: mb("VmRSS"), anon: mb("RssAnon") };
};
const shown = (r: { rss: number; anon: number }) => `${r.rss} MB (anonymous ${r.anon} MB)`;

const qq = new FakeQqPlatform().start();
const model = await startFakeOpenAI(() => openaiText("ok"));
const home = mkdtempSync(join(tmpdir(), "clawbox-pairing-flood-"));
writeFileSync(
  join(home, "clawbox.json"),
  JSON.stringify({
    agent: { owners: ["cli", `qq:${OWNER}`] },
    models: fakeModelsSection(model.url),
    memory: { enabled: false },
    channels: {
      qq: {
        appId: qq.appId,
        clientSecret: qq.clientSecret,
        apiBase: qq.url,
        tokenUrl: qq.tokenUrl,
      },
    },
  }),
);

let box: RunningService | undefined;
try {
  box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" }, [
    binary,
    "run",
  ]);
  const output = box.output;
  const pid = box.child.pid ?? 0;
  await waitUntil(
    () => qq.connections.some((c) => c.some((f) => f.op === 2)),
    30_000,
    "the QQ gateway identify",
  ).catch((error: unknown) => {
    throw new Error(`${error}\n${output().slice(-2000)}`);
  });
  await Bun.sleep(1000);
  const rssIdentified = rssMb(pid);

  const strangersAnswered = () => qq.sent.filter((m) => m.peerId.startsWith("FLOOD_")).length;
  const flood = async (from: number, count: number) => {
    const started = performance.now();
    for (let i = from; i < from + count; i++) {
      qq.c2c(`FLOOD_${i}`, "/pair");
      // The gateway is one WebSocket: let the box read as the platform sends.
      if (i % 100 === 99) await Bun.sleep(10);
    }
    await waitUntil(
      () => strangersAnswered() >= from + count,
      300_000,
      `answers to ${from + count} strangers`,
    ).catch((error: unknown) => {
      throw new Error(`${error} (${strangersAnswered()} answered)\n${output().slice(-3000)}`);
    });
    await Bun.sleep(1000);
    return Math.round(performance.now() - started);
  };
  const firstMs = await flood(0, first);
  const rssFirst = rssMb(pid);
  const moreMs = await flood(first, more);
  const rssMore = rssMb(pid);
  // What stays once the box has been quiet for a while. The idle trim (one full
  // collection, SQLite's shrink_memory) follows agent turns only, and no stranger's /pair
  // is one; so: 15 s quiet, then one owner turn and 15 s more.
  const strangerTurns = model.requests.length;
  await Bun.sleep(15_000);
  const rssSettled = rssMb(pid);
  const ownerAnswers = () => qq.sent.filter((m) => m.peerId === OWNER).length;
  const before = ownerAnswers();
  qq.c2c(OWNER, "hello");
  await waitUntil(() => ownerAnswers() > before, 60_000, "the owner's answer");
  await Bun.sleep(15_000);
  const rssTrimmed = rssMb(pid);

  const db = new Database(join(home, "clawbox.db"), { readonly: true });
  const pending = (db.query("SELECT COUNT(*) AS n FROM pairing_requests").get() as { n: number }).n;
  db.close();
  const ownerNotices = before;
  const withCode = qq.sent.filter(
    (m) => m.peerId.startsWith("FLOOD_") && /code is /.test(String(m.body.content ?? "")),
  ).length;
  const result = {
    binary: binary === compiled ? "dist/clawbox-linux-x64" : "bin/clawbox",
    strangers: first + more,
    // Each { rss, anon } in MB: VmRSS and its anonymous part.
    identified: rssIdentified,
    [`after${first}`]: rssFirst,
    [`after${first + more}`]: rssMore,
    quiet15s: rssSettled,
    afterOwnerTurnAndIdleTrim: rssTrimmed,
    firstFloodMs: firstMs,
    moreFloodMs: moreMs,
    pendingCodes: pending,
    strangersGivenACode: withCode,
    ownerNotices,
    strangerTurns,
  };
  if (json) console.log(JSON.stringify(result));
  else {
    log(`binary: ${result.binary}`);
    log(`RSS once the QQ gateway identified: ${shown(rssIdentified)}`);
    log(
      `RSS after ${first} strangers sent /pair (all answered): ${shown(rssFirst)} (${firstMs} ms)`,
    );
    log(`RSS after ${first + more}: ${shown(rssMore)} (${moreMs} ms for the last ${more})`);
    log(`RSS after 15 s without messages: ${shown(rssSettled)}`);
    log(`RSS after one owner turn and 15 s (the idle trim ran): ${shown(rssTrimmed)}`);
    log(`pending codes: ${pending}; strangers given a code: ${withCode}`);
    log(`notices to the owner on QQ: ${ownerNotices}; model turns for strangers: ${strangerTurns}`);
  }
  process.exitCode = pending <= 10 && ownerNotices <= 1 && strangerTurns === 0 ? 0 : 1;
} finally {
  box?.child.kill("SIGTERM");
  await qq.stop();
  await model.close();
  rmSync(home, { recursive: true, force: true });
}
