/**
 * Fetches the npm packages that only exist for another CPU (`cpu: ["arm64"]`), which npm
 * therefore skips on an x64 build machine: the aarch64 Bun runtime used to cross-compile
 * and the arm64 sqlite-vec extension. Versions and sha512 integrity come from
 * package-lock.json (they are optional dependencies of `bun` and of this package), so the
 * lockfile is the single pin. `npm pack` fetches through npm's cache (registry only),
 * the tarball is checked against the lockfile's integrity, then unpacked.
 *
 * Usage: bun scripts/build-cross-packages.ts <cache dir> <package>...
 * Prints one line per package: `<name>\t<unpacked package folder>`.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import * as z from "zod";

const root = resolve(import.meta.dir, "..");
const LockEntry = z.object({ version: z.string(), integrity: z.string().startsWith("sha512-") });
const Lockfile = z.object({ packages: z.record(z.string(), z.unknown()) });

function fail(message: string): never {
  console.error(`build-cross-packages: ${message}`);
  process.exit(1);
}

function lockEntry(name: string): z.infer<typeof LockEntry> {
  const lock = Lockfile.parse(JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")));
  const parsed = LockEntry.safeParse(lock.packages[`node_modules/${name}`]);
  if (!parsed.success)
    fail(`package-lock.json has no pinned entry for ${name} (add it as a dependency)`);
  return parsed.data;
}

function fetchPackage(cache: string, name: string): string {
  const { version, integrity } = lockEntry(name);
  const tarball = join(cache, `${name.replace("@", "").replace("/", "-")}-${version}.tgz`);
  const unpacked = join(cache, `${name.replace("/", "__")}@${version}`);
  if (existsSync(join(unpacked, "package", "package.json"))) return join(unpacked, "package");
  if (!existsSync(tarball)) {
    const packed = spawnSync(
      "npm",
      ["pack", `${name}@${version}`, "--pack-destination", cache, "--silent"],
      {
        cwd: cache,
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    if (packed.status !== 0) fail(`npm pack ${name}@${version} failed (registry reachable?)`);
  }
  if (!existsSync(tarball)) fail(`npm pack did not produce ${tarball}`);
  const digest = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  if (digest !== integrity) {
    rmSync(tarball, { force: true });
    fail(`${name}@${version}: integrity mismatch (got ${digest}, lockfile has ${integrity})`);
  }
  rmSync(unpacked, { recursive: true, force: true });
  mkdirSync(unpacked, { recursive: true });
  const untar = spawnSync("tar", ["-xzf", tarball, "-C", unpacked], { stdio: "inherit" });
  if (untar.status !== 0) fail(`cannot unpack ${tarball}`);
  return join(unpacked, "package");
}

const [cacheArg, ...names] = process.argv.slice(2);
if (!cacheArg || names.length === 0)
  fail("usage: build-cross-packages.ts <cache dir> <package>...");
const cache = resolve(cacheArg);
mkdirSync(cache, { recursive: true });
for (const name of names) console.log(`${name}\t${fetchPackage(cache, name)}`);
