/**
 * wyoming: Home Assistant's voice agent (src/wyoming) measured against a real
 * `clawbox run` started from source, driven by the Wyoming client of test/fakes.
 *
 * - `overheadMsP50` / `overheadMsP95`: time of one Assist turn (connect, transcript,
 *   handled) minus the time of the same model reply asked of the model server directly
 *   (a fake OpenAI server on loopback answering at once): what the Wyoming server, the
 *   session and the agent add per request. Target p50 ≤ 15 ms on x64.
 * - `evalRatio`: over a 10-turn conversation in one room with the tiny GGUF
 *   (stories260K, llama.cpp, one thread, a 16384-token context as in cache-prefix, so
 *   no compaction happens within the ten turns), tokens evaluated ÷ tokens newly appended,
 *   from the usage stored with each reply. Target ≤ 1.05 (KV reuse across the room's turns).
 * - `rssReadyOnMb` / `rssReadyOffMb`: RSS at READY (the notify datagram) with
 *   `wyoming.enabled` on and off, medians of `--runs` starts; `rssListeningOnMb` once the
 *   server has answered a first `describe` (it is imported after READY). Target: on ≤ off + 2 MB.
 *
 * - `describeMsP50`: connect + `describe` + `info`: the Wyoming layer alone.
 *
 *   npm run bench -- wyoming [--json] [--runs N] [--turns N] [--no-model] [--only rss|overhead|ratio]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bindNotifySocket } from "../../test/fakes/notify-socket.ts";
import { openaiText, startFakeOpenAI } from "../../test/fakes/openai-server.ts";
import { assistTurn, connectWyoming } from "../../test/fakes/wyoming-client.ts";
import { openaiProviderConfig } from "../../test/support/openai-provider-fixture.ts";

const root = resolve(import.meta.dir, "../..");
const bin = join(root, "bin", "clawbox");
const args = process.argv.slice(2);
const json = args.includes("--json");
const argAfter = (flag: string) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
};
const runs = Number(argAfter("--runs") ?? 5);
const turns = Number(argAfter("--turns") ?? 40);
const storiesModel = join(root, "..", "shared", "models", "stories260K.gguf");
const log = (line: string) => {
  if (!json) console.error(line);
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
};
const round = (value: number) => Math.round(value * 100) / 100;

interface Box {
  home: string;
  port: number;
  pid: number;
  rssReadyMb: number;
  stop(): Promise<void>;
}

async function startBox(config: Record<string, unknown>, wyoming: boolean): Promise<Box> {
  const home = mkdtempSync(join(tmpdir(), "clawbox-bench-wyoming-"));
  const port = await freePort();
  writeFileSync(
    join(home, "clawbox.json"),
    JSON.stringify({ ...config, wyoming: { enabled: wyoming, port } }),
  );
  const socket = bindNotifySocket(
    `@clawbox-bench-wy-${process.pid}-${Math.random().toString(36).slice(2)}`,
  );
  const child = Bun.spawn([bin, "run", "--port", "0"], {
    cwd: "/",
    env: { ...process.env, CLAWBOX_HOME: home, NOTIFY_SOCKET: socket.path, CLAWBOX_CONFIG: "" },
    stdout: "ignore",
    stderr: "ignore",
  });
  await socket.waitFor("READY=1", 60_000);
  const rssReadyMb = rssMb(child.pid);
  socket.close();
  return {
    home,
    port,
    pid: child.pid,
    rssReadyMb,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function waitForServer(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const client = await connectWyoming(port).catch(() => undefined);
    if (client) {
      client.send("describe");
      const info = await client.next(5000).catch(() => undefined);
      client.close();
      if (info?.type === "info") return;
    }
    await Bun.sleep(50);
  }
  throw new Error(`no Wyoming server on ${port}`);
}

/** Overhead per request: Assist turns minus the same reply asked of the model directly. */
async function overhead() {
  const model = await startFakeOpenAI();
  const config = {
    models: {
      primary: "cloud",
      fallbacks: [],
      providers: { cloud: openaiProviderConfig(model.url, { timeoutMs: 30_000 }) },
    },
    memory: { enabled: false },
  };
  const box = await startBox(config, true);
  try {
    await waitForServer(box.port);
    const reply = "The kitchen light is off now.";
    const direct: number[] = [];
    const turnsMs: number[] = [];
    for (let i = 0; i < turns + 5; i++) {
      model.enqueue(openaiText(reply));
      const started = performance.now();
      const res = await fetch(`${model.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "fake",
          stream: true,
          messages: [{ role: "user", content: "x" }],
        }),
      });
      await res.text();
      const directMs = performance.now() - started;
      model.enqueue(openaiText(reply));
      const t0 = performance.now();
      const event = await assistTurn(box.port, `Turn off the kitchen light, turn ${i}`, {
        conversation_id: `01JF8ZQ3V9M7W6K5T4S3R2P${String(i).padStart(3, "0")}`,
        satellite_id: "assist_satellite.kitchen",
      });
      const turnMs = performance.now() - t0;
      if (event.type !== "handled") throw new Error(`turn ${i}: ${JSON.stringify(event)}`);
      // The first turns warm up (context engine, prompt files): not counted.
      if (i < 5) continue;
      direct.push(directMs);
      turnsMs.push(turnMs);
    }
    const overheads = turnsMs.map((t, i) => t - (direct[i] ?? 0));
    // The Wyoming layer alone: connect, describe, info (no agent, no model).
    const describes: number[] = [];
    for (let i = 0; i < turns; i++) {
      const t0 = performance.now();
      const client = await connectWyoming(box.port);
      client.send("describe");
      await client.next(5000);
      client.close();
      describes.push(performance.now() - t0);
    }
    return {
      overheadMsP50: round(median(overheads)),
      overheadMsP95: round(percentile(overheads, 0.95)),
      turnMsP50: round(median(turnsMs)),
      modelMsP50: round(median(direct)),
      describeMsP50: round(median(describes)),
    };
  } finally {
    await box.stop();
    await model.close();
  }
}

/** Tokens evaluated ÷ appended over a 10-turn room conversation on the tiny GGUF. */
async function evalRatio() {
  if (args.includes("--no-model") || !existsSync(storiesModel)) {
    log(`skipping the model conversation: ${storiesModel} is absent or --no-model`);
    return {};
  }
  const config = {
    models: {
      primary: "local",
      providers: {
        local: {
          kind: "local",
          path: storiesModel,
          threads: 1,
          temperature: 0,
          seed: 7,
          maxTokens: 24,
          contextSize: 16384,
        },
      },
    },
    memory: { enabled: false },
  };
  const box = await startBox(config, true);
  try {
    await waitForServer(box.port);
    const sayings = [
      "Tell me a story about a cat.",
      "What did the cat do next?",
      "And then?",
      "Was the cat happy?",
      "Where did it go?",
      "Who did it meet?",
      "What did they eat?",
      "Did it rain?",
      "How did it end?",
      "Thank you, goodnight.",
    ];
    for (const [i, text] of sayings.entries()) {
      const event = await assistTurn(box.port, text, {
        conversation_id: "01JF8ZQ3V9M7W6K5T4S3R2P1NB",
        satellite_id: "assist_satellite.kitchen",
      });
      log(`room turn ${i + 1}: ${event.type}`);
    }
    const exported = spawnSync(
      bin,
      ["sessions", "export", "agent:main:wyoming:direct:assist_satellite.kitchen"],
      {
        env: { ...process.env, CLAWBOX_HOME: box.home, CLAWBOX_CONFIG: "" },
        encoding: "utf8",
      },
    );
    const usages = exported.stdout
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            type: string;
            message?: {
              role: string;
              usage?: { input: number; output: number; cacheRead: number };
            };
          },
      )
      .filter((e) => e.type === "message" && e.message?.role === "assistant" && e.message.usage)
      .map((e) => e.message?.usage as { input: number; output: number; cacheRead: number });
    let previous = 0;
    let evaluated = 0;
    let appended = 0;
    for (const usage of usages) {
      const prompt = usage.input + usage.cacheRead;
      log(
        `request: evaluated ${usage.input}, reused ${usage.cacheRead}, appended ${prompt - previous}`,
      );
      evaluated += usage.input;
      appended += prompt - previous;
      previous = prompt + usage.output;
    }
    return {
      roomTurns: usages.length,
      evalRatio: round(evaluated / Math.max(1, appended)),
      promptTokensAtEnd: previous,
    };
  } finally {
    await box.stop();
  }
}

/** RSS at READY with the server on and off, and once it has answered a describe. */
async function rss() {
  const config = {
    models: { primary: "local", providers: { local: { kind: "local" } } },
    memory: { enabled: false },
  };
  const on: number[] = [];
  const off: number[] = [];
  const listening: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = await startBox(config, false);
    off.push(a.rssReadyMb);
    await a.stop();
    const b = await startBox(config, true);
    on.push(b.rssReadyMb);
    await waitForServer(b.port);
    listening.push(rssMb(b.pid));
    await b.stop();
  }
  return {
    rssReadyOffMb: round(median(off)),
    rssReadyOnMb: round(median(on)),
    rssListeningOnMb: round(median(listening)),
    rssRuns: runs,
  };
}

const only = argAfter("--only");
const result = {
  ...(only && only !== "rss" ? {} : await rss()),
  ...(only && only !== "overhead" ? {} : await overhead()),
  ...(only && only !== "ratio" ? {} : await evalRatio()),
};
if (json) console.log(JSON.stringify(result));
else {
  if ("rssReadyOnMb" in result)
    console.log(
      `RSS at READY: ${result.rssReadyOnMb} MB with wyoming on, ${result.rssReadyOffMb} MB off (target: on ≤ off + 2 MB); ${result.rssListeningOnMb} MB once it answered a describe`,
    );
  if ("overheadMsP50" in result)
    console.log(
      `overhead per request over the model: p50 ${result.overheadMsP50} ms, p95 ${result.overheadMsP95} ms (turn p50 ${result.turnMsP50} ms, model alone ${result.modelMsP50} ms, describe alone ${result.describeMsP50} ms; target p50 ≤ 15 ms)`,
    );
  if ("evalRatio" in result)
    console.log(
      `10-turn room conversation on stories260K: evaluated/appended ${result.evalRatio} (target ≤ 1.05)`,
    );
}
process.exit(0);
