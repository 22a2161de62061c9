/**
 * Where the program's parts live. Run from source, they come from the repository and
 * node_modules; inside a `bun build --compile` binary, native parts (sqlite-vec, llama.cpp
 * backend, onnxruntime) cannot be dlopen'ed from Bun's embedded filesystem, so they are
 * shipped in a lib folder beside the binary (see docs/PACKAGING.md for the three layouts:
 * build output, tarball, .deb). Everything is resolved from the binary's real location
 * (symlinks followed), never from the current directory.
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface RuntimeLayout {
  /** True inside a compiled single binary. */
  compiled: boolean;
  /** Repository root (source run) or the folder holding the binary's parts. */
  root: string;
  /** Native libraries shipped beside a compiled binary. */
  libDir: string;
  /** Bundled skills (`<name>/SKILL.md`). */
  skillsDir: string;
  /** Bundled documentation the agent can read. */
  docsDir: string;
}

function isCompiled(): boolean {
  return import.meta.url.includes("$bunfs") || import.meta.url.includes("~BUN");
}

let cached: RuntimeLayout | undefined;

export function runtimeLayout(): RuntimeLayout {
  if (cached) return cached;
  if (isCompiled()) {
    const binDir = dirname(realpathSync(process.execPath));
    const platformLib = join("lib", `linux-${process.arch}`);
    // Build output: dist/clawbox-linux-<arch> + dist/lib/linux-<arch> (arches side by side);
    // tarball: <root>/clawbox + <root>/lib; .deb: /usr/bin/clawbox + /usr/lib/clawbox/lib.
    const candidates = [
      { root: binDir, lib: join(binDir, platformLib) },
      { root: binDir, lib: join(binDir, "lib") },
      { root: resolve(binDir, "../lib/clawbox"), lib: resolve(binDir, "../lib/clawbox/lib") },
    ];
    const found = candidates.find((c) => existsSync(join(c.lib, "vec0.so"))) ?? {
      root: binDir,
      lib: join(binDir, "lib"),
    };
    cached = {
      compiled: true,
      root: found.root,
      libDir: found.lib,
      skillsDir: join(found.root, "skills"),
      docsDir: join(found.root, "docs"),
    };
  } else {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
    cached = {
      compiled: false,
      root,
      libDir: join(root, "node_modules"),
      skillsDir: join(root, "skills"),
      docsDir: join(root, "docs"),
    };
  }
  return cached;
}
