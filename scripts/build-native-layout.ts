/**
 * Lays out, beside a compiled binary, the parts `bun build --compile` cannot embed:
 * native code is dlopen'ed from real files, so it cannot live in Bun's embedded
 * filesystem. The lib folder gets
 *   vec0.so                                sqlite-vec loadable extension
 *   node_modules/node-llama-cpp/…          package + its runtime dependency closure
 *   node_modules/@node-llama-cpp/linux-<arch>/   the CPU-only prebuilt backend
 *   node_modules/onnxruntime-node/…        JS + bin/napi-v6/linux/<arch> only
 * copied from node_modules with their nesting kept, so Bun's ordinary module resolution
 * works from there. GPU backends, other CPUs, sources, maps and typings are left out.
 *
 * Usage: bun scripts/build-native-layout.ts <x64|arm64> <lib dir> [--vec0 <path>]
 *        [--package <name>=<folder>]...   (a folder replacing node_modules/<name>)
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import * as z from "zod";

const root = resolve(import.meta.dir, "..");
const nodeModules = join(root, "node_modules");
const Manifest = z.object({
  dependencies: z.record(z.string(), z.string()).optional(),
  optionalDependencies: z.record(z.string(), z.string()).optional(),
});

function fail(message: string): never {
  console.error(`build-native-layout: ${message}`);
  process.exit(1);
}

const args = process.argv.slice(2);
const [arch, libArg] = args;
if ((arch !== "x64" && arch !== "arm64") || !libArg) {
  fail("usage: build-native-layout.ts <x64|arm64> <lib dir> [--vec0 path] [--package name=dir]");
}
const libDir = resolve(libArg);
const overrides = new Map<string, string>();
let vec0 = join(nodeModules, `sqlite-vec-linux-${arch}`, "vec0.so");
for (let i = 2; i < args.length; i++) {
  const value = args[i + 1];
  if (args[i] === "--vec0" && value) vec0 = resolve(value);
  else if (args[i] === "--package" && value?.includes("=")) {
    const at = value.indexOf("=", 1);
    overrides.set(value.slice(0, at), resolve(value.slice(at + 1)));
  } else fail(`unknown argument ${args[i]}`);
  i++;
}

/** Node's lookup: nearest node_modules/<name> from `fromDir` up to the repository. */
function locate(name: string, fromDir: string): string | undefined {
  const override = overrides.get(name);
  if (override) return override;
  for (let dir = fromDir; dir.startsWith(root); dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === root) break;
  }
  return undefined;
}

/** Package folders reachable from `name` through `dependencies` (plus chosen optionals). */
function closure(name: string, optionals: ReadonlySet<string>): Map<string, string> {
  const found = new Map<string, string>();
  const queue: Array<[string, string]> = [[name, root]];
  for (let next = queue.pop(); next; next = queue.pop()) {
    const [dep, from] = next;
    const dir = locate(dep, from);
    if (!dir) fail(`${dep} (needed by ${relative(root, from) || "clawbox"}) is not installed`);
    if (found.has(dir)) continue;
    found.set(dir, dep);
    const manifest = Manifest.parse(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")));
    for (const child of Object.keys(manifest.dependencies ?? {})) queue.push([child, dir]);
    for (const child of Object.keys(manifest.optionalDependencies ?? {})) {
      if (optionals.has(child)) queue.push([child, dir]);
    }
  }
  return found;
}

const SKIP_FILE = /(\.map|\.d\.ts|\.d\.mts|\.d\.cts|\.md)$/;
const SKIP_PATH = [
  `node-llama-cpp${sep}llama${sep}gitRelease.bundle`,
  `onnxruntime-node${sep}script`,
];
const ORT_BINS = `onnxruntime-node${sep}bin${sep}napi-v6${sep}`;

function keep(source: string): boolean {
  const name = basename(source);
  if (SKIP_FILE.test(name) && !/^license/i.test(name)) return false;
  if (SKIP_PATH.some((p) => source.includes(p))) return false;
  if (source.includes(ORT_BINS)) {
    const rest = source.slice(source.indexOf(ORT_BINS) + ORT_BINS.length).split(sep);
    if (rest[0] && rest[0] !== "linux") return false;
    if (rest[1] && rest[1] !== arch) return false;
  }
  // Nested node_modules are copied as packages of their own, when in the closure.
  return !(source.includes(`${sep}node_modules${sep}`) && basename(source) === "node_modules");
}

function destination(dir: string, name: string): string {
  if (overrides.get(name) === dir) return join(libDir, "node_modules", name);
  const inRepo = relative(root, dir);
  if (!inRepo.startsWith(`node_modules${sep}`)) fail(`${dir} is outside node_modules`);
  return join(libDir, inRepo);
}

if (!existsSync(vec0)) fail(`sqlite-vec extension not found: ${vec0}`);
rmSync(libDir, { recursive: true, force: true });
mkdirSync(join(libDir, "node_modules"), { recursive: true });
cpSync(vec0, join(libDir, "vec0.so"));

const backend = `@node-llama-cpp/linux-${arch}`;
const packages = new Map([
  ...closure("node-llama-cpp", new Set([backend])),
  ...closure("onnxruntime-node", new Set()),
]);
for (const [dir, name] of packages) {
  cpSync(dir, destination(dir, name), { recursive: true, filter: keep, dereference: true });
}
const required = [
  join(libDir, "node_modules", backend, "bins", `linux-${arch}`, "llama-addon.node"),
  join(
    libDir,
    "node_modules",
    "onnxruntime-node",
    "bin",
    "napi-v6",
    "linux",
    arch,
    "libonnxruntime.so.1",
  ),
];
for (const file of required) if (!existsSync(file)) fail(`missing after copy: ${file}`);
console.log(`${libDir}: vec0.so + ${packages.size} packages`);
