/**
 * `npm run bench -- soak [--json] [--messages N] [--kills N] [--steady-minutes M]
 *   [--rate R] [--binary PATH]`: the real `clawbox run` on this host (loopback only) under
 * inbound traffic on QQ, the WeCom app, the WeCom bot and MQTT (scripts/vm/traffic.ts: the
 * platform fakes, a real mosquitto and a model server that echoes each message's nonce).
 *
 * Phase 1: a share of the messages (N − the steady share) at R per second while the
 * process is killed with SIGKILL at random points (`--kills`, at least 30 by default) and
 * started again at once, as systemd's Restart= would. Phase 2: the rest at a steady rate
 * over `--steady-minutes` (≥ 10) with the process alive, its RSS sampled every 5 s. Then
 * it waits for every acknowledged message to be answered and counts, per platform, what
 * was lost (acknowledged, never answered) and duplicated (answered more than once).
 *
 * JSON: {messages, kills, lost, duplicates, rssStartMb, rssEndMb, rssMaxMb, rssByMinuteMb,
 * …}. The RSS is VmRSS of the process from /proc (start = first sample of phase 2, end =
 * last, one sample per minute to show whether it drifts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../vm/machine.ts";
import { CHANNELS, Traffic, type TrafficReport } from "../vm/traffic.ts";

const root = resolve(import.meta.dir, "../..");
const args = process.argv.slice(2);
const json = args.includes("--json");
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const binaryArg = args.indexOf("--binary");
const messages = arg("--messages", 1000);
const kills = arg("--kills", 30);
const steadyMinutes = arg("--steady-minutes", 10);
const rate = arg("--rate", 4);
const log = (line: string) => {
  if (!json) console.log(line);
};

const compiled = join(root, "dist/clawbox-linux-x64");
const command =
  binaryArg >= 0
    ? [args[binaryArg + 1] as string, "run"]
    : existsSync(compiled)
      ? [compiled, "run"]
      : [join(root, "bin/clawbox"), "run"];

function rssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Math.round((Number(kb) / 1024) * 10) / 10 : undefined;
  } catch {
    return undefined;
  }
}

const traffic = await Traffic.start({ hostFromBox: "127.0.0.1" });
const home = mkdtempSync(join(tmpdir(), "clawbox-soak-"));
const port = await freePort();
writeFileSync(join(home, "clawbox.json"), JSON.stringify(traffic.boxConfig(), null, 2));
traffic.setCallbackBase(`http://127.0.0.1:${port}`);

let child: ChildProcess | undefined;
let output = "";
function start(): Promise<ChildProcess> {
  return new Promise((resolveStart, reject) => {
    const proc = spawn(command[0] as string, [...command.slice(1), "--port", String(port)], {
      env: { ...process.env, CLAWBOX_HOME: home, CLAWBOX_CONFIG: "", CLAWBOX_THREADS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = proc;
    let seen = "";
    const onData = (d: Buffer) => {
      output = (output + d.toString("utf8")).slice(-20_000);
      seen += d.toString("utf8");
      if (/listening on http/.test(seen)) resolveStart(proc);
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", onData);
    proc.once("exit", (code, signal) => {
      if (!/listening on http/.test(seen))
        reject(new Error(`clawbox run exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}
async function kill9(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise<void>((r) => proc.once("exit", () => r()));
  proc.kill("SIGKILL");
  await gone;
}

const WARM_UP = CHANNELS.length;
const killPhase = Math.max(0, messages - WARM_UP - Math.round(rate * 0.25 * steadyMinutes * 60));
const steadyMessages = messages - WARM_UP - killPhase;
const steadyRate = steadyMessages / (steadyMinutes * 60);
log(
  `soak: ${command[0]}; phase 1: ${killPhase} messages at ${rate}/s with ${kills} kills; phase 2: ${steadyMessages} over ${steadyMinutes} min`,
);

let killed = 0;
const samples: { at: number; rss: number }[] = [];
let report: TrafficReport;
try {
  await start();
  // Warm-up: one message per platform answered before the first kill (the broker keeps
  // messages for the box only once its session exists).
  const warm = await traffic.sendEachAndWait(60_000);
  if (!warm.answered) {
    const replies = traffic.replies();
    const counts = warm.nonces.map((n) => `${n}:${replies.get(n) ?? 0}`).join(" ");
    throw new Error(`the warm-up messages were not all answered (${counts}):\n${output}`);
  }
  // Phase 1: kills at random points spread over the phase.
  const phaseMs = (killPhase / rate) * 1000;
  const killTimes = Array.from({ length: kills }, () => Math.random() * phaseMs).sort(
    (a, b) => a - b,
  );
  const phaseStart = Date.now();
  let sentInPhase = 0;
  let nextKill = 0;
  while (sentInPhase < killPhase) {
    traffic.send(CHANNELS[sentInPhase % CHANNELS.length] ?? "qq");
    sentInPhase += 1;
    const due = phaseStart + (sentInPhase / rate) * 1000;
    while (nextKill < killTimes.length && Date.now() - phaseStart >= (killTimes[nextKill] ?? 0)) {
      if (child) await kill9(child);
      killed += 1;
      nextKill += 1;
      await start();
    }
    await Bun.sleep(Math.max(0, due - Date.now()));
  }
  for (; nextKill < killTimes.length; nextKill++) {
    if (child) await kill9(child);
    killed += 1;
    await start();
  }
  log(`phase 1 done: ${sentInPhase} messages, ${killed} kills`);

  // Phase 2: steady traffic, the process alive; RSS every 5 s.
  const steadyStart = Date.now();
  const endAt = steadyStart + steadyMinutes * 60_000;
  let sentSteady = 0;
  let nextSample = steadyStart;
  while (Date.now() < endAt || sentSteady < steadyMessages) {
    if (
      sentSteady < steadyMessages &&
      Date.now() >= steadyStart + (sentSteady / steadyRate) * 1000
    ) {
      traffic.send(CHANNELS[sentSteady % CHANNELS.length] ?? "qq");
      sentSteady += 1;
    }
    if (Date.now() >= nextSample && child?.pid) {
      const rss = rssMb(child.pid);
      if (rss !== undefined) samples.push({ at: Date.now() - steadyStart, rss });
      nextSample += 5000;
    }
    if (child?.exitCode !== null) throw new Error(`clawbox run died in phase 2:\n${output}`);
    await Bun.sleep(200);
  }
  await traffic.stop();
  // Everything acknowledged gets its reply (retries back off up to 60 s).
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline && traffic.outstanding() > 0) await Bun.sleep(1000);
  report = traffic.report();
} finally {
  if (child) await kill9(child);
  await traffic.close();
}

const rssStartMb = samples[0]?.rss ?? 0;
const rssEndMb = samples[samples.length - 1]?.rss ?? 0;
const rssMaxMb = Math.max(0, ...samples.map((s) => s.rss));
const result = {
  messages: report.sent,
  kills: killed,
  lost: report.lost,
  duplicates: report.duplicates,
  rssStartMb,
  rssEndMb,
  rssMaxMb,
  /** The sample nearest each whole minute of phase 2 (0 … steadyMinutes). */
  rssByMinuteMb: Array.from(
    { length: steadyMinutes + 1 },
    (_, m) =>
      samples.reduce<{ at: number; rss: number } | undefined>(
        (best, s) =>
          !best || Math.abs(s.at - m * 60_000) < Math.abs(best.at - m * 60_000) ? s : best,
        undefined,
      )?.rss ?? 0,
  ),
  steadyMinutes,
  acknowledged: report.acknowledged,
  unacknowledged: report.unacknowledged,
  byChannel: report.byChannel,
  ...(report.lost > 0 ? { lostNonces: report.lostNonces.slice(0, 20) } : {}),
  ...(report.duplicates > 0 ? { duplicateNonces: report.duplicateNonces.slice(0, 20) } : {}),
};
if (json) console.log(JSON.stringify(result));
else {
  log(JSON.stringify(result, null, 2));
  log(
    `RSS samples (s: MB): ${samples.map((s) => `${Math.round(s.at / 1000)}:${s.rss}`).join(" ")}`,
  );
}
if (report.lost === 0 && report.duplicates === 0) rmSync(home, { recursive: true, force: true });
else console.error(`soak: kept ${home} for inspection`);
process.exit(report.lost === 0 && report.duplicates === 0 ? 0 : 1);
