/**
 * `npm run bench -- startup [--json] [--runs N] [--no-arm64] [--binary PATH] [--mqtt] [--qq]`: time from exec of the
 * compiled binary (`clawbox run`, no model configured) to the READY=1 datagram on a
 * notify socket the benchmark binds, as systemd would see it, and the RSS of the process
 * right after READY. Median of N warm starts (the home already exists); the first start
 * (creates database and workspace) is reported apart. Targets (SPEC §11): ≤ 150 ms and
 * ≤ 45 MB for x64. The arm64 binary is timed the same way under qemu-user as a relative
 * figure only (emulation is 10–30× slower, and RSS then includes the emulator).
 *
 * The binary's page cache is dropped first (`dd iflag=nocache count=0`, only this file),
 * so its pages come from disk as after a boot. Right after a build the page cache holds
 * what the build wrote, mapped in larger blocks: the same binary then reads 3–5 MB more
 * VmRSS (file pages only). `--keep-page-cache` measures that state instead.
 *
 * `--mqtt` starts a real mosquitto on a free loopback port and enables the Home
 * Assistant bridge against it; besides RSS at READY it then reports the RSS once the
 * bridge has connected and published discovery (the mqtt package loads after READY).
 *
 * `--qq` starts the fake QQ platform (test/fakes) and enables `channels.qq` against it;
 * it then also reports the RSS once the gateway has identified (the channel code loads
 * and connects after READY, so READY must not move).
 *
 * `--wecom` enables both WeCom channels against loopback fakes (the app with its API
 * base on the fake WeCom API, the bot on the fake long-connection server); besides RSS
 * at READY it reports the RSS once the bot has subscribed (channels connect after READY).
 *
 * `--openai` turns on the OpenAI-compatible API (`server.openaiApi`, with a token) on a
 * free port; besides RSS at READY it reports the RSS after a first `GET /v1/models` (the
 * routes' code loads on that first request, so READY must not move) and after a first
 * `POST /v1/chat/completions` (no model is configured, so the turn fails fast; a first
 * turn loads the agent's context engine, as one on `/api/chat` does: information only).
 * `--settle S` also reads RSS S seconds after the last of those figures, the box left
 * alone (S ≥ 11 includes the idle trim 10 s after the last task): `rssSettledMb`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bindNotifySocket } from "../../test/fakes/notify-socket.ts";
import { FakeQqPlatform, waitUntil } from "../../test/fakes/qq-platform.ts";
import { startFakeWeComApi } from "../../test/fakes/wecom-api-server.ts";
import { startFakeBotServer } from "../../test/fakes/wecom-bot-server.ts";
import { wecomAppConfig } from "../../test/fakes/wecom-callback-sender.ts";
import { MOSQUITTO, type Mosquitto, startMosquitto } from "../../test/support/mosquitto.ts";
import { startProbe } from "../../test/support/mqtt-probe.ts";

const root = resolve(import.meta.dir, "../..");
const args = process.argv.slice(2);
const json = args.includes("--json");
// --settle S: also read RSS S seconds after connecting, once the idle trim (10 s) has run.
const settleArg = args.indexOf("--settle");
const settleSeconds = settleArg >= 0 ? Number(args[settleArg + 1]) : 0;
const runsArg = args.indexOf("--runs");
const runs = runsArg >= 0 ? Number(args[runsArg + 1]) : 9;
const log = (line: string) => {
  if (!json) console.log(line);
};

interface Start {
  readyMs: number;
  rssMb: number;
  /** Anonymous part of the RSS; the rest is clean pages of the executable file. */
  rssAnonMb: number;
  /** With --mqtt: RSS once the bridge said `online` on the broker. */
  rssMqttMb?: number;
  /** With --qq: RSS once the QQ gateway has identified. */
  rssQqMb?: number;
  /** With --wecom: RSS once the WeCom bot has subscribed on the fake long connection. */
  rssWecomMb?: number;
  /** With --openai: RSS once /v1/models has answered (the routes loaded). */
  rssOpenaiMb?: number;
  /** With --openai: RSS once a first /v1/chat/completions turn has answered too. */
  rssOpenaiTurnMb?: number;
  /** With --settle S: RSS S seconds after the last figure above (the box left alone). */
  rssSettledMb?: number;
  rssSettledAnonMb?: number;
}

const OPENAI_TOKEN = "bench-openai-token-0123456789";
const withOpenai = args.includes("--openai");

/** A port nothing listens on now (for the one run whose URL the bench must know). */
function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = Number(probe.port);
  probe.stop(true);
  return port;
}

const openaiHeaders = {
  authorization: `Bearer ${OPENAI_TOKEN}`,
  "content-type": "application/json",
};

/** An OpenAI client's first request: the model list. */
async function openaiModels(port: number): Promise<void> {
  const models = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: openaiHeaders });
  if (models.status !== 200) throw new Error(`GET /v1/models answered ${models.status}`);
}

/** A first chat turn through the OpenAI API. */
async function openaiTurn(port: number): Promise<void> {
  const chat = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: "POST",
    headers: openaiHeaders,
    body: JSON.stringify({ model: "clawbox", messages: [{ role: "user", content: "hi" }] }),
  });
  await chat.text();
}

const qqPlatform = args.includes("--qq") ? new FakeQqPlatform().start() : undefined;
let qqStarts = 0;

/** Resolves when the box under test has sent its (next) Identify to the fake QQ gateway. */
async function qqIdentified(): Promise<void> {
  if (!qqPlatform) return;
  qqStarts += 1;
  const want = qqStarts;
  await waitUntil(
    () => qqPlatform.connections.filter((c) => c.some((f) => f.op === 2)).length >= want,
    10_000,
    "the QQ gateway identify",
  );
}

const WECOM_BOT = { botId: "bench-bot", secret: "bench-bot-secret" };
const wecom = args.includes("--wecom")
  ? {
      bot: startFakeBotServer(WECOM_BOT),
      api: startFakeWeComApi({ corpId: "wwbench", corpSecret: "bench-corp-secret" }),
    }
  : undefined;

/** Both WeCom channels, against the fakes. */
function wecomChannels(): Record<string, unknown> {
  if (!wecom) return {};
  return {
    wecom: {
      app: wecomAppConfig(
        {
          corpId: "wwbench",
          token: "bench-token",
          encodingAESKey: "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
        },
        "bench-corp-secret",
        wecom.api.url,
      ),
      bot: { ...WECOM_BOT, wsUrl: wecom.bot.url },
    },
  };
}

const subscribes = () => wecom?.bot.received.filter((f) => f.cmd === "aibot_subscribe").length ?? 0;

const withMqtt = args.includes("--mqtt");
let broker: Mosquitto | undefined;
if (withMqtt) {
  if (!MOSQUITTO) {
    console.error("startup: --mqtt needs mosquitto (apt-get install mosquitto)");
    process.exit(1);
  }
  broker = await startMosquitto();
}

/** Resolves when the box under test has published `online` on its availability topic. */
async function mqttOnline(nodeId: string): Promise<void> {
  if (!broker) return;
  const probe = await startProbe(broker.url, [`clawbox/${nodeId}/availability`]);
  try {
    await probe.waitFor((m) => m.text === "online", { timeoutMs: 10_000 });
  } finally {
    await probe.close();
  }
}

function statusMb(status: string, field: string): number {
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
}

async function startOnce(command: string[], home: string, timeoutMs: number): Promise<Start> {
  const port = withOpenai ? freePort() : 0;
  const socket = bindNotifySocket(
    `@clawbox-bench-${process.pid}-${Math.random().toString(36).slice(2)}`,
  );
  const subscribedBefore = subscribes();
  const started = performance.now();
  const child = Bun.spawn([...command, "run", "--port", String(port)], {
    cwd: "/",
    env: { ...process.env, CLAWBOX_HOME: home, NOTIFY_SOCKET: socket.path, CLAWBOX_CONFIG: "" },
    stdout: "ignore",
    stderr: "pipe",
  });
  try {
    await socket.waitFor("READY=1", timeoutMs);
    const readyMs = performance.now() - started;
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const start: Start = {
      readyMs,
      rssMb: statusMb(status, "VmRSS"),
      rssAnonMb: statusMb(status, "RssAnon"),
    };
    if (broker) {
      await mqttOnline("bench");
      // Let the discovery publishes and the first GC settle before reading again.
      await Bun.sleep(500);
      start.rssMqttMb = statusMb(readFileSync(`/proc/${child.pid}/status`, "utf8"), "VmRSS");
    }
    if (qqPlatform) {
      await qqIdentified();
      await Bun.sleep(500);
      start.rssQqMb = statusMb(readFileSync(`/proc/${child.pid}/status`, "utf8"), "VmRSS");
    }
    if (wecom) {
      await wecom.bot.waitFor(() => subscribes() > subscribedBefore, 10_000);
      await Bun.sleep(500);
      start.rssWecomMb = statusMb(readFileSync(`/proc/${child.pid}/status`, "utf8"), "VmRSS");
    }
    if (withOpenai) {
      await openaiModels(port);
      await Bun.sleep(500);
      start.rssOpenaiMb = statusMb(readFileSync(`/proc/${child.pid}/status`, "utf8"), "VmRSS");
      await openaiTurn(port);
      await Bun.sleep(500);
      start.rssOpenaiTurnMb = statusMb(readFileSync(`/proc/${child.pid}/status`, "utf8"), "VmRSS");
    }
    if (settleSeconds > 0) {
      await Bun.sleep(settleSeconds * 1000);
      const settled = readFileSync(`/proc/${child.pid}/status`, "utf8");
      start.rssSettledMb = statusMb(settled, "VmRSS");
      start.rssSettledAnonMb = statusMb(settled, "RssAnon");
    }
    return start;
  } catch (error) {
    child.kill("SIGKILL");
    const stderr = await new Response(child.stderr).text();
    throw new Error(`${(error as Error).message}\n${stderr.slice(-2000)}`);
  } finally {
    child.kill("SIGTERM");
    await child.exited;
    socket.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function measure(command: string[], count: number, timeoutMs: number) {
  const home = mkdtempSync(join(tmpdir(), "clawbox-bench-startup-"));
  if (broker || qqPlatform || wecom || withOpenai) {
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        ...(withOpenai ? { server: { token: OPENAI_TOKEN, openaiApi: { enabled: true } } } : {}),
        ...(broker ? { mqtt: { enabled: true, url: broker.url, nodeId: "bench" } } : {}),
        ...(qqPlatform || wecom
          ? {
              channels: {
                ...(qqPlatform
                  ? {
                      qq: {
                        appId: qqPlatform.appId,
                        clientSecret: qqPlatform.clientSecret,
                        apiBase: qqPlatform.url,
                        tokenUrl: qqPlatform.tokenUrl,
                      },
                    }
                  : {}),
                ...wecomChannels(),
              },
            }
          : {}),
      }),
    );
  }
  try {
    const first = await startOnce(command, home, timeoutMs);
    const warm: Start[] = [];
    for (let i = 0; i < count; i++) warm.push(await startOnce(command, home, timeoutMs));
    return {
      firstStartReadyMs: first.readyMs,
      readyMs: median(warm.map((s) => s.readyMs)),
      readyMsMin: Math.min(...warm.map((s) => s.readyMs)),
      rssMb: median(warm.map((s) => s.rssMb)),
      rssAnonMb: median(warm.map((s) => s.rssAnonMb)),
      rssMqttMb: broker ? median(warm.map((s) => s.rssMqttMb ?? Number.NaN)) : undefined,
      rssQqMb: qqPlatform ? median(warm.map((s) => s.rssQqMb ?? Number.NaN)) : undefined,
      rssSettledMb:
        settleSeconds > 0 ? median(warm.map((s) => s.rssSettledMb ?? Number.NaN)) : undefined,
      rssSettledAnonMb:
        settleSeconds > 0 ? median(warm.map((s) => s.rssSettledAnonMb ?? Number.NaN)) : undefined,
      rssWecomMb: wecom ? median(warm.map((s) => s.rssWecomMb ?? Number.NaN)) : undefined,
      rssOpenaiMb: withOpenai ? median(warm.map((s) => s.rssOpenaiMb ?? Number.NaN)) : undefined,
      rssOpenaiTurnMb: withOpenai
        ? median(warm.map((s) => s.rssOpenaiTurnMb ?? Number.NaN))
        : undefined,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const binaryArg = args.indexOf("--binary");
// --binary: measure another x64 build (A/B of build options) instead of dist/.
const x64 =
  binaryArg >= 0 ? resolve(String(args[binaryArg + 1])) : join(root, "dist", "clawbox-linux-x64");
const arm64 = join(root, "dist", "clawbox-linux-arm64");
if (!existsSync(x64)) {
  console.error(`startup: ${x64} missing; building it (npm run build)`);
  const build = spawnSync(
    "bash",
    [join(root, "scripts", "build.sh"), "--arch", "x64", "--no-package"],
    { stdio: "inherit" },
  );
  if (build.status !== 0) process.exit(1);
}

const keepPageCache = args.includes("--keep-page-cache");
if (!keepPageCache) {
  const drop = spawnSync("dd", [`if=${x64}`, "iflag=nocache", "count=0", "status=none"]);
  if (drop.status !== 0) console.error(`startup: cannot drop the page cache of ${x64}`);
}
const round = (n: number) => Math.round(n * 10) / 10;
const x = await measure([x64], runs, 10_000);
log(
  `x64 compiled: READY=1 after ${round(x.readyMs)} ms (median of ${runs}, min ${round(x.readyMsMin)}; first start ${round(x.firstStartReadyMs)} ms) — target ≤ 150 ms`,
);
log(
  `x64 compiled: RSS at READY ${round(x.rssMb)} MB (anonymous ${round(x.rssAnonMb)} MB, rest: pages of the executable${keepPageCache ? ", page cache as found" : ""}) — target ≤ 45 MB`,
);

if (x.rssMqttMb !== undefined) {
  log(
    `x64 compiled: RSS with the MQTT bridge connected (discovery published) ${round(x.rssMqttMb)} MB — target ≤ 45 MB`,
  );
}

if (x.rssQqMb !== undefined) {
  log(
    `x64 compiled: RSS with channels.qq connected (gateway identified, fake platform) ${round(x.rssQqMb)} MB — target ≤ 45 MB`,
  );
}

if (x.rssWecomMb !== undefined) {
  log(
    `x64 compiled: RSS with both WeCom channels enabled and the bot subscribed ${round(x.rssWecomMb)} MB — target ≤ 45 MB`,
  );
}

if (x.rssOpenaiMb !== undefined) {
  log(
    `x64 compiled: RSS with server.openaiApi on, after a first /v1/models (routes loaded) ${round(x.rssOpenaiMb)} MB — target ≤ 45 MB`,
  );
  log(
    `x64 compiled: RSS after a first /v1/chat/completions turn ${round(x.rssOpenaiTurnMb ?? Number.NaN)} MB (the agent's first turn, as on /api/chat; information only)`,
  );
}

let arm: { readyMs: number; firstStartReadyMs: number; ratioToX64: number } | null = null;
const qemu = "/usr/bin/qemu-aarch64-static";
if (args.includes("--no-arm64")) {
  log("arm64 under qemu: skipped (--no-arm64)");
} else if (!existsSync(arm64) || !existsSync(qemu) || !existsSync("/usr/aarch64-linux-gnu/lib")) {
  log(
    "arm64 under qemu: skipped (needs dist/clawbox-linux-arm64, qemu-user-static and libc6-arm64-cross)",
  );
} else {
  const a = await measure(
    [qemu, "-L", "/usr/aarch64-linux-gnu", "-cpu", "cortex-a76", arm64],
    3,
    120_000,
  );
  arm = {
    readyMs: a.readyMs,
    firstStartReadyMs: a.firstStartReadyMs,
    ratioToX64: a.readyMs / x.readyMs,
  };
  log(
    `arm64 under qemu-user: READY=1 after ${round(a.readyMs)} ms (median of 3; ${round(arm.ratioToX64)}× x64; emulated, relative only)`,
  );
}

if (json) {
  console.log(
    JSON.stringify({
      readyMs: round(x.readyMs),
      rssMb: round(x.rssMb),
      rssAnonMb: round(x.rssAnonMb),
      ...(x.rssMqttMb !== undefined ? { mqtt: true, rssMqttConnectedMb: round(x.rssMqttMb) } : {}),
      ...(x.rssQqMb !== undefined ? { qq: true, rssQqConnectedMb: round(x.rssQqMb) } : {}),
      ...(x.rssWecomMb !== undefined
        ? { wecom: true, rssWecomConnectedMb: round(x.rssWecomMb) }
        : {}),
      ...(x.rssOpenaiMb !== undefined
        ? {
            openai: true,
            rssOpenaiRoutesMb: round(x.rssOpenaiMb),
            rssOpenaiFirstTurnMb: round(x.rssOpenaiTurnMb ?? Number.NaN),
          }
        : {}),
      ...(x.rssSettledMb !== undefined
        ? {
            settleSeconds,
            rssSettledMb: round(x.rssSettledMb),
            rssSettledAnonMb: round(x.rssSettledAnonMb ?? Number.NaN),
          }
        : {}),
      readyMsMin: round(x.readyMsMin),
      firstStartReadyMs: round(x.firstStartReadyMs),
      runs,
      pageCacheDropped: !keepPageCache,
      targets: { readyMs: 150, rssMb: 45 },
      pass:
        x.readyMs <= 150 &&
        x.rssMb <= 45 &&
        (x.rssMqttMb ?? 0) <= 45 &&
        (x.rssQqMb ?? 0) <= 45 &&
        (x.rssWecomMb ?? 0) <= 45 &&
        (x.rssOpenaiMb ?? 0) <= 45,
      arm64Qemu: arm && {
        readyMs: round(arm.readyMs),
        firstStartReadyMs: round(arm.firstStartReadyMs),
        ratioToX64: round(arm.ratioToX64),
      },
    }),
  );
}
await broker?.stop();
await qqPlatform?.stop();
await wecom?.bot.close();
await wecom?.api.close();
