#!/usr/bin/env node
// Runs the whole test suite under Bun (tests import bun:sqlite) and ends with the
// line "N passed, N failed, N skipped" that CI reads. Extra args go to vitest.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bun = join(root, "node_modules", "bun", "bin", "bun.exe");
const outDir = join(root, "test", ".tmp");
mkdirSync(outDir, { recursive: true });
const report = join(outDir, "vitest-report.json");
rmSync(report, { force: true });

const result = spawnSync(
  existsSync(bun) ? bun : "bun",
  [
    "x",
    "--bun",
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: "inherit", env: { ...process.env, ORT_DISABLE_TELEMETRY: "1" } },
);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const data = JSON.parse(readFileSync(report, "utf8"));
  passed = data.numPassedTests ?? 0;
  failed = (data.numFailedTests ?? 0) + (data.numRuntimeErrorTestSuites ?? 0);
  skipped = (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
  // A test file that fails to load counts as a failure even when it has no tests.
  for (const suite of data.testResults ?? []) {
    if (suite.status === "failed" && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
} else {
  failed += 1;
}
const code = result.status === 0 && failed === 0 ? 0 : 1;
if (passed === 0 && failed === 0) failed = 1; // a run that executed nothing is a failure
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : code);
