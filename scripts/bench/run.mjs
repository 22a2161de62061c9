#!/usr/bin/env node
// `npm run bench -- <name> [--json] [args]`: runs scripts/bench/<name>.ts under the pinned Bun.
// With no name it lists the benchmarks. Each benchmark prints figures and ratios; with
// --json it prints exactly one JSON object on stdout.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const names = readdirSync(here)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3))
  .sort();
const [name, ...rest] = process.argv.slice(2);
if (!name || !names.includes(name)) {
  console.error(`usage: npm run bench -- <${names.join("|")}> [--json]`);
  process.exit(name ? 2 : 0);
}
const bun = join(root, "node_modules", "bun", "bin", "bun.exe");
const result = spawnSync(existsSync(bun) ? bun : "bun", [join(here, `${name}.ts`), ...rest], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, ORT_DISABLE_TELEMETRY: "1" },
});
process.exit(result.status ?? 1);
