/**
 * `npm run bench -- rss-after-use [--json] [--turns N] [--sessions N] [--idle-s N]
 * [--slope-turns N] [--window TOKENS] [--binary PATH] [--source] [--concurrency N] [--smaps DIR]`: the memory a running
 * box gives back after use. Starts the real `clawbox run` (the compiled x64 binary in
 * dist/, built when missing, its page cache dropped first as the startup bench does;
 * `--source` runs bin/clawbox instead) against a fake OpenAI-compatible model on
 * loopback, then drives it over the HTTP API (`POST /api/chat`), one turn at a time:
 *
 *  - RSS at READY (the listening line, after 0.5 s);
 *  - RSS right after N turns (default 1,000) spread round-robin over M sessions
 *    (default 100), so every session sees N/M turns;
 *  - RSS after `--idle-s` seconds idle (default 30), sampled every 5 s;
 *  - the slope of RSS in KiB per turn over a further `--slope-turns` turns (default
 *    5,000, same sessions): the least-squares line through samples every 100 turns
 *    (also reported for the second half alone, and through the lowest sample of each
 *    500 turns, which leaves out where a sample falls between two collections);
 *  - RSS after the same idle period again, and what it kept per turn of the further
 *    turns ((idle again − idle) ÷ slope turns: memory the box does not give back).
 *
 * RSS is VmRSS from /proc/<pid>/status, split into RssAnon (JS heap, JIT code,
 * allocators) and RssFile (mostly the pages of the binary's code that have run). The
 * fake model runs in this process, so its memory is not counted. Targets (issue 29):
 * ≤ 55 MB after the idle period, slope ≤ 0.2 KiB per turn.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cloudOnlyConfig } from "../../test/support/openai-provider-fixture.ts";
import { startService } from "../../test/support/run-service.ts";

const root = resolve(import.meta.dir, "../..");
const args = process.argv.slice(2);
const json = args.includes("--json");
const argAfter = (flag: string): string | undefined => {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
};
const turns = Number(argAfter("--turns") ?? 1000);
const sessions = Number(argAfter("--sessions") ?? 100);
const idleSeconds = Number(argAfter("--idle-s") ?? 30);
const slopeTurns = Number(argAfter("--slope-turns") ?? 5000);
const concurrency = Number(argAfter("--concurrency") ?? 1);
/**
 * `--window TOKENS`: the model's context window (default 32,000: room for a session's 60
 * turns, so histories grow through the whole run and no turn compacts). 8,192 is the
 * box's own cap for a local model: sessions reach it and compact, as on a box in use.
 */
const windowTokens = Number(argAfter("--window") ?? 32_000);
/** `--smaps DIR`: copies /proc/<pid>/smaps there at each phase (ready, afterTurns, idle, end, idleAgain). */
const smapsDir = argAfter("--smaps");
const log = (line: string) => {
  if (!json) console.log(line);
};

const REPLIES = [
  "The kitchen light is on at 60 %. Shall I dim it?",
  "It is 21.5 °C in the living room and 48 % humidity; the window is closed.",
  "Done: the garage door is closed and locked. I will remind you at 7 to take out the bins.",
  "好的，客厅的灯已经关了。明天早上七点提醒你浇花。",
  "The washing machine finished 12 minutes ago. The dryer is free.",
];
const QUESTIONS = [
  "Is the kitchen light on?",
  "How warm is it in the living room?",
  "Close the garage door and remind me about the bins at 7.",
  "把客厅的灯关掉，明天早上七点提醒我浇花。",
  "Is the washing machine done?",
];

/** A minimal OpenAI-compatible streaming endpoint that keeps nothing per request. */
async function startFakeModel(): Promise<{ url: string; requests: () => number; close(): void }> {
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      count += 1;
      const body = Buffer.concat(chunks).toString("utf8");
      const reply = REPLIES[count % REPLIES.length] ?? "ok";
      const promptTokens = Math.ceil(body.length / 4);
      const frames = [
        { choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
        ...(reply.match(/\S+\s*/g) ?? [reply]).map((word) => ({
          choices: [{ index: 0, delta: { content: word } }],
        })),
        { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        {
          choices: [],
          usage: {
            prompt_tokens: promptTokens,
            completion_tokens: 20,
            total_tokens: promptTokens + 20,
          },
        },
      ];
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const frame of frames)
        res.write(
          `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", ...frame })}\n\n`,
        );
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, requests: () => count, close: () => server.close() };
}

function statusKb(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
}

const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;
const round = (n: number) => Math.round(n * 1000) / 1000;
const rssKb = (pid: number) => statusKb(pid, "VmRSS");

/** RSS with its anonymous part (JS heap, JIT code, allocators) and its file part (the binary). */
function rssParts(pid: number): { rssMb: number; anonMb: number; fileMb: number } {
  return {
    rssMb: mb(statusKb(pid, "VmRSS")),
    anonMb: mb(statusKb(pid, "RssAnon")),
    fileMb: mb(statusKb(pid, "RssFile")),
  };
}

/** CPU time (user + system) the process has used so far, in ms (Linux: 100 ticks/s). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function binaryCommand(): string[] {
  if (args.includes("--source")) return [join(root, "bin", "clawbox"), "run"];
  const binaryArg = argAfter("--binary");
  const binary = binaryArg ? resolve(binaryArg) : join(root, "dist", "clawbox-linux-x64");
  if (!existsSync(binary)) {
    console.error(`rss-after-use: ${binary} missing; building it (npm run build)`);
    const build = spawnSync(
      "bash",
      [join(root, "scripts", "build.sh"), "--arch", "x64", "--no-package"],
      { stdio: "inherit" },
    );
    if (build.status !== 0) process.exit(1);
  }
  // Its pages come from disk, as after a boot (as the startup bench does).
  spawnSync("dd", [`if=${binary}`, "iflag=nocache", "count=0", "status=none"]);
  return [binary, "run"];
}

const model = await startFakeModel();
const home = mkdtempSync(join(tmpdir(), "clawbox-bench-rss-"));
const config = cloudOnlyConfig(model.url);
config.models.providers.cloud.contextWindow = windowTokens;
writeFileSync(join(home, "clawbox.json"), JSON.stringify(config));

const service = await startService(
  ["--port", "0"],
  { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" },
  binaryCommand(),
);
const pid = service.child.pid ?? 0;

async function turn(i: number): Promise<void> {
  const session = `bench-${i % sessions}`;
  const res = await fetch(`${service.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: `${QUESTIONS[i % QUESTIONS.length]} (${i})`, session }),
  });
  const body = (await res.json()) as { reply?: string; error?: { message: string } };
  if (res.status !== 200 || !body.reply)
    throw new Error(`turn ${i}: HTTP ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
}

async function drive(from: number, count: number, onProgress?: (turn: number) => void) {
  let next = from;
  const end = from + count;
  const worker = async () => {
    while (next < end) {
      const i = next++;
      await turn(i);
      onProgress?.(i - from + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function dumpSmaps(phase: string): void {
  if (!smapsDir) return;
  mkdirSync(smapsDir, { recursive: true });
  writeFileSync(join(smapsDir, `${phase}.smaps`), readFileSync(`/proc/${pid}/smaps`, "utf8"));
}

const describe = (p: ReturnType<typeof rssParts>) =>
  `${p.rssMb} MB (anonymous ${p.anonMb}, file ${p.fileMb})`;

try {
  await Bun.sleep(500);
  const ready = rssParts(pid);
  dumpSmaps("ready");
  log(`RSS at READY: ${describe(ready)}`);
  const started = performance.now();
  const cpuBefore = cpuMs(pid);
  await drive(0, turns);
  const burstMs = performance.now() - started;
  const cpuPerTurn = (cpuMs(pid) - cpuBefore) / turns;
  const after = rssParts(pid);
  dumpSmaps("afterTurns");
  log(
    `RSS after ${turns} turns over ${sessions} sessions: ${describe(after)}; ${Math.round(burstMs / turns)} ms/turn, ${cpuPerTurn.toFixed(1)} ms CPU/turn in the box`,
  );
  const idleSamples = await idleFor(idleSeconds);
  const idle = rssParts(pid);
  dumpSmaps("idle");
  log(`RSS after ${idleSeconds} s idle: ${describe(idle)}; every 5 s: ${idleSamples.join(", ")}`);
  const samples: { turn: number; kb: number; anonKb: number; fileKb: number }[] = [];
  await drive(turns, slopeTurns, (n) => {
    if (n % 100 === 0)
      samples.push({
        turn: n,
        kb: statusKb(pid, "VmRSS"),
        anonKb: statusKb(pid, "RssAnon"),
        fileKb: statusKb(pid, "RssFile"),
      });
  });
  const points = samples.map((s) => [s.turn, s.kb] as const);
  const slope = leastSquaresSlope(points);
  const slopeSecondHalf = leastSquaresSlope(points.filter(([turn]) => turn > slopeTurns / 2));
  const end = rssParts(pid);
  dumpSmaps("end");
  const floors = windowFloors(points, 500);
  // The same two measures for each part of RSS: which one carries the slope.
  const anonPoints = samples.map((s) => [s.turn, s.anonKb] as const);
  const filePoints = samples.map((s) => [s.turn, s.fileKb] as const);
  const split = {
    anonSlopeKiBPerTurn: round(leastSquaresSlope(anonPoints)),
    anonFloorSlopeKiBPerTurn: round(leastSquaresSlope(windowFloors(anonPoints, 500))),
    fileSlopeKiBPerTurn: round(leastSquaresSlope(filePoints)),
    fileFloorSlopeKiBPerTurn: round(leastSquaresSlope(windowFloors(filePoints, 500))),
  };
  const floorSlope = leastSquaresSlope(floors);
  log(
    `RSS after ${slopeTurns} more turns: ${describe(end)}; slope ${slope.toFixed(3)} KiB/turn (second half ${slopeSecondHalf.toFixed(3)}, lowest of each 500 turns ${floorSlope.toFixed(3)})`,
  );
  // The same idle period again: what the box keeps after the further turns.
  const idleAgainSamples = slopeTurns > 0 ? await idleFor(idleSeconds) : [];
  const idleAgain = rssParts(pid);
  dumpSmaps("idleAgain");
  const retainedSlope = slopeTurns > 0 ? ((idleAgain.rssMb - idle.rssMb) * 1024) / slopeTurns : 0;
  log(
    `RSS after ${idleSeconds} s idle again: ${describe(idleAgain)}; retained ${retainedSlope.toFixed(3)} KiB/turn`,
  );
  const result = {
    turns,
    sessions,
    idleSeconds,
    slopeTurns,
    concurrency,
    contextWindow: windowTokens,
    rssReadyMb: ready.rssMb,
    rssAfterTurnsMb: after.rssMb,
    rssIdleMb: idle.rssMb,
    rssEndMb: end.rssMb,
    rssIdleAgainMb: idleAgain.rssMb,
    slopeKiBPerTurn: round(slope),
    slopeSecondHalfKiBPerTurn: round(slopeSecondHalf),
    floorSlopeKiBPerTurn: round(floorSlope),
    retainedKiBPerTurn: round(retainedSlope),
    /** The slope split into RssAnon and RssFile (each through all samples and through the floors). */
    split,
    parts: { ready, afterTurns: after, idle, end, idleAgain },
    idleSamplesMb: idleSamples,
    idleAgainSamplesMb: idleAgainSamples,
    /** RSS every 100 turns of the slope phase. */
    slopeSamplesMb: samples.map((s) => mb(s.kb)),
    slopeSamplesAnonMb: samples.map((s) => mb(s.anonKb)),
    slopeSamplesFileMb: samples.map((s) => mb(s.fileKb)),
    msPerTurn: Math.round((burstMs / turns) * 10) / 10,
    cpuMsPerTurn: Math.round(cpuPerTurn * 10) / 10,
    modelRequests: model.requests(),
    targets: { rssIdleMb: 55, slopeKiBPerTurn: 0.2 },
    pass: idle.rssMb <= 55 && slope <= 0.2,
  };
  if (json) console.log(JSON.stringify(result));
  else log(result.pass ? "targets met" : "targets missed");
} finally {
  service.child.kill("SIGTERM");
  await service.exited;
  model.close();
  rmSync(home, { recursive: true, force: true });
}

/** RSS every 5 s for `seconds` (MB). */
async function idleFor(seconds: number): Promise<number[]> {
  const samples: number[] = [];
  for (let s = 5; s <= seconds; s += 5) {
    await Bun.sleep(5000);
    samples.push(mb(rssKb(pid)));
  }
  return samples;
}

/** The lowest sample of each `width` turns, at the window's middle: RSS between collections. */
function windowFloors(
  points: readonly (readonly [number, number])[],
  width: number,
): (readonly [number, number])[] {
  const floors = new Map<number, number>();
  for (const [turn, kb] of points) {
    const window = Math.floor((turn - 1) / width);
    floors.set(window, Math.min(floors.get(window) ?? Number.POSITIVE_INFINITY, kb));
  }
  return [...floors].map(([window, kb]) => [window * width + width / 2, kb] as const);
}

function leastSquaresSlope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return num / den;
}
