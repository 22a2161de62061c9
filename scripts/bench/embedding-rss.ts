/**
 * `npm run bench -- embedding-rss [--json]`: RSS of `clawbox run` (from source, under
 * the pinned Bun) with no embedding model and with one installed as the default
 * `bge-small-zh-v1.5-int8` (the generated tiny int8 ONNX model, test/fixtures: no real
 * model is obtainable offline). Read at READY=1 and again 3 s later, once the memory
 * service has indexed MEMORY.md; then, in a fresh process, the RSS growth of the first
 * memory search, which is what loads onnxruntime and the model. With the model loaded on
 * first use, both `run` figures stay at the no-model level.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bindNotifySocket } from "../../test/fakes/notify-socket.ts";
import { writeTinyEmbeddingModel } from "../../test/fixtures/tiny-embedding-model.ts";

const root = resolve(import.meta.dir, "../..");
const json = process.argv.includes("--json");
const NOTE = "# Notes\n\nThe garden hose is in the garage next to the bicycle.\n";

const rssMb = (pid: number, field = "VmRSS"): number => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(
    readFileSync(`/proc/${pid}/status`, "utf8"),
  );
  return Math.round((Number(match?.[1] ?? 0) / 1024) * 10) / 10;
};

function makeHome(withModel: boolean): string {
  const home = mkdtempSync(join(tmpdir(), "clawbox-bench-embed-"));
  mkdirSync(join(home, "workspace"), { recursive: true });
  writeFileSync(join(home, "workspace", "MEMORY.md"), NOTE);
  if (withModel) {
    writeTinyEmbeddingModel(join(home, "models", "bge-small-zh-v1.5-int8"), {
      name: "bge-small-zh-v1.5-int8",
      quantized: true,
    });
  }
  return home;
}

async function runFigures(withModel: boolean) {
  const home = makeHome(withModel);
  const socket = bindNotifySocket(`@clawbox-bench-embed-${process.pid}-${withModel}`);
  const child = Bun.spawn(
    [join(root, "node_modules/.bin/bun"), join(root, "src/cli/main.ts"), "run", "--port", "0"],
    {
      env: { ...process.env, CLAWBOX_HOME: home, NOTIFY_SOCKET: socket.path, CLAWBOX_CONFIG: "" },
      stdout: "ignore",
      stderr: "ignore",
    },
  );
  try {
    await socket.waitFor("READY=1", 20_000);
    const atReady = rssMb(child.pid);
    await Bun.sleep(3000);
    return { atReady, settled: rssMb(child.pid) };
  } finally {
    child.kill("SIGTERM");
    await child.exited;
    socket.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** In a child process: RSS before and after the first memory search loads the model. */
async function firstSearch() {
  const home = makeHome(true);
  const script = `
    const { configSchema } = await import(${JSON.stringify(join(root, "src/config/index.ts"))});
    const { createMemory } = await import(${JSON.stringify(join(root, "src/memory/index.ts"))});
    const { Store } = await import(${JSON.stringify(join(root, "src/store/index.ts"))});
    const { homePaths, silentLogger } = await import(${JSON.stringify(join(root, "src/system/index.ts"))});
    const paths = homePaths(${JSON.stringify(home)});
    const store = Store.open({ path: paths.database });
    const memory = createMemory({ config: configSchema.parse({ memory: { watch: false } }), store, paths, logger: silentLogger });
    await memory.start();
    Bun.gc(true);
    const rss = () => Math.round((process.memoryUsage().rss / 1048576) * 10) / 10;
    const before = rss();
    await memory.search("where is the garden hose");
    Bun.gc(true);
    console.log(JSON.stringify({ before, after: rss(), loaded: (await memory.status()).model.loaded }));
    await memory.close();
    store.close();
  `;
  const child = Bun.spawn([join(root, "node_modules/.bin/bun"), "-e", script], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(child.stdout).text();
  await child.exited;
  rmSync(home, { recursive: true, force: true });
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as {
    before: number;
    after: number;
    loaded: boolean;
  };
}

const none = await runFigures(false);
const installed = await runFigures(true);
const search = await firstSearch();
const result = {
  runNoModel: none,
  runModelInstalled: installed,
  firstSearch: search,
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(
    `clawbox run (source), no embedding model: READY ${none.atReady} MB, +3 s ${none.settled} MB`,
  );
  console.log(
    `clawbox run (source), int8 model installed: READY ${installed.atReady} MB, +3 s ${installed.settled} MB`,
  );
  console.log(
    `first memory search (loads onnxruntime + model): ${search.before} MB -> ${search.after} MB (loaded: ${search.loaded})`,
  );
}
