/**
 * Where the program's parts live. Run from source, they come from the repository and
 * node_modules; inside a `bun build --compile` binary, native parts (sqlite-vec, llama.cpp
 * backend, onnxruntime) cannot be dlopen'ed from Bun's embedded filesystem, so they are
 * shipped in `lib/` beside the binary's own folder (see docs/PACKAGING.md). Everything is
 * resolved from the binary's location, never from the current directory.
 */
import { existsSync } from "node:fs";
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
    const binDir = dirname(process.execPath);
    // Tarball layout: <root>/clawbox + <root>/lib; .deb layout: /usr/bin/clawbox → /usr/lib/clawbox.
    const candidates = [binDir, resolve(binDir, "../lib/clawbox")];
    const root = candidates.find((dir) => existsSync(join(dir, "lib"))) ?? binDir;
    cached = {
      compiled: true,
      root,
      libDir: join(root, "lib"),
      skillsDir: join(root, "skills"),
      docsDir: join(root, "docs"),
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
