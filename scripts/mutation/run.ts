/**
 * `npm run mutation -- [--json] [--only ID,ID] [--area AREA] [--list FILE] [--root DIR]
 * [--no-baseline] [--timeout SECONDS]`: the standing mutation check. For each mutant
 * in the curated list (scripts/mutation/mutants.json) it writes the mutated source,
 * runs only the mutant's test files under Bun, and restores the file, then prints
 * `{mutants, killed, survived: [...], errors: [...]}` (one JSON object on stdout with
 * --json; progress goes to stderr).
 *
 * Guarantees: a source file is always restored byte for byte (try/finally, and on
 * SIGINT/SIGTERM/SIGHUP); it refuses to start while any target file has uncommitted
 * changes (so a runner killed with -9 is noticed: the next start names the file to
 * `git checkout`); a snippet not found exactly once is reported as an error, not skipped.
 * The mapped test files first run once unmutated (the baseline): a mutant is killed only
 * when a test that passes on the real code fails on the mutant.
 *
 * Exit code: 0 when every mutant was killed or is an explained survivor (`explained` in
 * the list, pointing at the docs) and nothing was stale; 1 otherwise; 2 for bad usage.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  AREAS,
  DEFAULT_LIST,
  loadMutants,
  type Mutant,
  mutatedSource,
  staleReason,
} from "./mutant-list.ts";

interface Options {
  json: boolean;
  only?: string[];
  area?: string;
  list: string;
  root: string;
  baseline: boolean;
  timeoutMs: number;
}

function usage(message: string): never {
  console.error(`mutation: ${message}`);
  console.error(
    "usage: npm run mutation -- [--json] [--only ID,ID] [--area AREA] [--list FILE] [--root DIR] [--no-baseline] [--timeout SECONDS]",
  );
  process.exit(2);
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    // `npm run mutation --json` (without `--`) hands --json to npm, which passes it on as
    // npm_config_json; honour it so both spellings print JSON.
    json: process.env.npm_config_json === "true",
    list: DEFAULT_LIST,
    root: resolve(import.meta.dirname, "../.."),
    baseline: true,
    timeoutMs: 300_000,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => argv[++i] ?? usage(`${arg} needs a value`);
    if (arg === "--json") options.json = true;
    else if (arg === "--no-baseline") options.baseline = false;
    else if (arg === "--only") options.only = value().split(",").filter(Boolean);
    else if (arg === "--area") options.area = value();
    else if (arg === "--list") options.list = resolve(value());
    else if (arg === "--root") options.root = resolve(value());
    else if (arg === "--timeout") options.timeoutMs = Number(value()) * 1000;
    else usage(`unknown argument ${arg}`);
  }
  if (options.area && !(AREAS as readonly string[]).includes(options.area))
    usage(`unknown area ${options.area} (one of ${AREAS.join(", ")})`);
  if (!(options.timeoutMs > 0)) usage("--timeout takes a number of seconds");
  return options;
}

const options = parseOptions(process.argv.slice(2));
const log = (line: string) => process.stderr.write(`${line}\n`);
const bun = [join(options.root, "node_modules", "bun", "bin", "bun.exe"), process.execPath].find(
  (p) => existsSync(p),
);

let all: Mutant[];
try {
  all = loadMutants(options.list);
} catch (error) {
  usage((error as Error).message);
}
const unknown = (options.only ?? []).filter((id) => !all.some((m) => m.id === id));
if (unknown.length > 0) usage(`no mutant with id ${unknown.join(", ")}`);
const chosen = all.filter(
  (m) =>
    (!options.only || options.only.includes(m.id)) && (!options.area || m.area === options.area),
);

/** Target files with uncommitted changes (the runner would otherwise "restore" someone's edit). */
function dirtyFiles(files: string[]): string[] {
  const git = spawnSync("git", ["status", "--porcelain", "--", ...files], {
    cwd: options.root,
    encoding: "utf8",
  });
  if (git.status !== 0) usage(`git status failed in ${options.root}: ${git.stderr.trim()}`);
  return git.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => line.slice(3));
}

const targets = [...new Set(chosen.map((m) => m.file))];
const dirty = dirtyFiles(targets);
if (dirty.length > 0) {
  console.error(
    `mutation: refusing to start: uncommitted changes in ${dirty.join(", ")}\n` +
      `  commit them, or if a mutation run was killed, restore with: git checkout -- ${dirty.join(" ")}`,
  );
  process.exit(1);
}

/** The file being mutated and its original bytes, restored on any exit path. */
let pending: { path: string; original: Buffer } | undefined;
function restore(): void {
  if (!pending) return;
  writeFileSync(pending.path, pending.original);
  pending = undefined;
}
let child: ReturnType<typeof spawn> | undefined;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.on(signal, () => {
    restore();
    if (child?.pid) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    log(`mutation: ${signal}: source restored`);
    process.exit(130);
  });
process.on("exit", restore);

interface TestRun {
  ok: boolean;
  timedOut: boolean;
  failed: string[];
  passed: number;
  skipped: number;
  detail: string;
}

interface VitestReport {
  numPassedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: {
    name: string;
    status: string;
    message?: string;
    assertionResults?: { fullName: string; status: string }[];
  }[];
}

/** Runs `files` under Bun with vitest in a process group of its own (killed on timeout). */
function runTests(files: string[]): Promise<TestRun> {
  const outDir = mkdtempSync(join(tmpdir(), "clawbox-mutation-"));
  const report = join(outDir, "report.json");
  return new Promise((done) => {
    let output = "";
    const proc = spawn(
      bun ?? "bun",
      [
        "x",
        "--bun",
        "vitest",
        "run",
        "--reporter=json",
        `--outputFile.json=${report}`,
        "--bail=1",
        ...files,
      ],
      {
        cwd: options.root,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ORT_DISABLE_TELEMETRY: "1", CLAWBOX_MUTATION: "1" },
      },
    );
    child = proc;
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-4000);
    };
    proc.stdout?.on("data", keep);
    proc.stderr?.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (proc.pid) process.kill(-proc.pid, "SIGKILL");
    }, options.timeoutMs);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      child = undefined;
      let data: VitestReport = {};
      try {
        data = JSON.parse(readFileSync(report, "utf8")) as VitestReport;
      } catch {
        // no report: the run crashed or was killed; the exit code decides
      }
      rmSync(outDir, { recursive: true, force: true });
      const failed: string[] = [];
      for (const suite of data.testResults ?? []) {
        const rel = suite.name.startsWith(options.root)
          ? suite.name.slice(options.root.length + 1)
          : suite.name;
        const bad = (suite.assertionResults ?? []).filter((a) => a.status === "failed");
        for (const a of bad) failed.push(`${rel} > ${a.fullName}`);
        if (suite.status === "failed" && bad.length === 0)
          failed.push(`${rel} (${(suite.message ?? "failed to load").split("\n")[0]})`);
      }
      done({
        ok: code === 0 && !timedOut,
        timedOut,
        failed,
        passed: data.numPassedTests ?? 0,
        skipped: (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0),
        detail: output,
      });
    });
  });
}

interface Outcome {
  id: string;
  area: string;
  file: string;
  status: "killed" | "survived" | "error";
  seconds: number;
  /** killed: the tests that failed (or "timeout"); survived: tests that skipped. */
  by?: string[];
  skipped?: number;
  guarantee?: string;
  doc?: string;
  explained?: string;
  error?: string;
}

async function runMutant(mutant: Mutant): Promise<Outcome> {
  const base = { id: mutant.id, area: mutant.area, file: mutant.file };
  const stale = staleReason(options.root, mutant);
  if (stale) return { ...base, status: "error", seconds: 0, error: stale };
  const path = join(options.root, mutant.file);
  const original = readFileSync(path);
  const mutated = mutatedSource(original.toString("utf8"), mutant);
  try {
    new Bun.Transpiler({ loader: "ts" }).transformSync(mutated);
  } catch (error) {
    // A mutant that does not parse would be "killed" by any test: say so instead.
    return { ...base, status: "error", seconds: 0, error: `mutant does not parse: ${error}` };
  }
  const started = performance.now();
  let run: TestRun;
  try {
    pending = { path, original };
    writeFileSync(path, mutated);
    run = await runTests(mutant.tests);
  } finally {
    restore();
  }
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  if (!readFileSync(path).equals(original))
    return { ...base, status: "error", seconds, error: `${mutant.file} was not restored` };
  if (!run.ok)
    return {
      ...base,
      status: "killed",
      seconds,
      by: run.timedOut ? ["timeout"] : run.failed.slice(0, 3),
    };
  return {
    ...base,
    status: "survived",
    seconds,
    guarantee: mutant.guarantee,
    doc: mutant.doc,
    ...(run.skipped > 0 ? { skipped: run.skipped } : {}),
    ...(mutant.explained ? { explained: mutant.explained } : {}),
  };
}

const wallStarted = performance.now();
let baselineSeconds = 0;
if (options.baseline) {
  const files = [
    ...new Set(chosen.filter((m) => !staleReason(options.root, m)).flatMap((m) => m.tests)),
  ].sort();
  log(`baseline: ${files.length} test files, unmutated`);
  const started = performance.now();
  const run = await runTests(files);
  baselineSeconds = Math.round((performance.now() - started) / 100) / 10;
  if (!run.ok) {
    console.error(
      `mutation: the baseline fails without any mutant, so no mutant can be judged:\n  ${
        run.timedOut ? "timeout" : run.failed.join("\n  ") || run.detail
      }`,
    );
    process.exit(1);
  }
  log(`baseline: ${run.passed} passed, ${run.skipped} skipped (${baselineSeconds} s)`);
}

const outcomes: Outcome[] = [];
for (const [i, mutant] of chosen.entries()) {
  const outcome = await runMutant(mutant);
  outcomes.push(outcome);
  const what =
    outcome.status === "killed"
      ? `killed by ${outcome.by?.[0] ?? "?"}`
      : outcome.status === "error"
        ? `ERROR ${outcome.error}`
        : `SURVIVED${outcome.explained ? " (explained)" : ""}${outcome.skipped ? ` (${outcome.skipped} skipped)` : ""}`;
  log(`[${i + 1}/${chosen.length}] ${mutant.id} (${outcome.seconds} s): ${what}`);
}

const killed = outcomes.filter((o) => o.status === "killed").length;
const survived = outcomes.filter((o) => o.status === "survived");
const errors = outcomes.filter((o) => o.status === "error");
const judged = killed + survived.length;
const summary = {
  mutants: outcomes.length,
  killed,
  survived: survived.map(({ id, file, guarantee, doc, skipped, explained }) => ({
    id,
    file,
    guarantee,
    doc,
    ...(skipped ? { skipped } : {}),
    ...(explained ? { explained } : {}),
  })),
  errors: errors.map(({ id, file, error }) => ({ id, file, error })),
  killRate: judged > 0 ? Math.round((killed / judged) * 1000) / 1000 : 0,
  areas: Object.fromEntries(
    AREAS.map((a) => [a, outcomes.filter((o) => o.area === a).length]).filter(([, n]) => n),
  ),
  baselineSeconds,
  wallSeconds: Math.round((performance.now() - wallStarted) / 100) / 10,
};
if (options.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
else {
  log("");
  for (const s of summary.survived)
    log(
      `survived: ${s.id} (${s.file}): ${s.doc}: ${s.guarantee}${s.explained ? ` — explained: ${s.explained}` : ""}`,
    );
  for (const e of summary.errors) log(`error: ${e.id}: ${e.error}`);
  console.log(
    `${summary.mutants} mutants, ${killed} killed, ${survived.length} survived, ${errors.length} errors; kill rate ${(summary.killRate * 100).toFixed(1)}%; ${summary.wallSeconds} s`,
  );
}
const unexplained = survived.filter((s) => !s.explained).length;
process.exit(errors.length > 0 || unexplained > 0 ? 1 : 0);
