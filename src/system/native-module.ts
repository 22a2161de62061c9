/**
 * Loads the npm packages with native code (node-llama-cpp, onnxruntime-node) from the
 * right place: node_modules in a source run, `<libDir>/node_modules` beside a compiled
 * binary (Bun cannot dlopen from its embedded filesystem, see docs/PACKAGING.md).
 * Owners import them only through `importNative`, lazily, so the bundler never pulls
 * them into the binary and startup never pays for them.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import { z } from "../schema/index.ts";
import { runtimeLayout } from "./runtime-layout.ts";

const Manifest = z.object({
  main: z.optional(z.string()),
  module: z.optional(z.string()),
  exports: z.optional(
    z.union([
      z.string(),
      z.object({ ".": z.union([z.string(), z.record(z.string(), z.unknown())]) }),
    ]),
  ),
});

/** The ESM entry file of a package folder (exports "." import/node/default, else main). */
function packageEntry(packageDir: string): string {
  const file = join(packageDir, "package.json");
  const parsed = Manifest.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) {
    throw new ClawboxError("NATIVE_MODULE_MISSING", `${file}: unreadable package manifest`);
  }
  const { exports, main, module } = parsed.data;
  const dot = typeof exports === "string" ? exports : exports?.["."];
  const conditional =
    typeof dot === "object"
      ? [dot.import, dot.node, dot.default].find((v) => typeof v === "string")
      : dot;
  const entry = typeof conditional === "string" ? conditional : (module ?? main ?? "index.js");
  return resolve(packageDir, entry);
}

export type NativeModuleName = "node-llama-cpp" | "onnxruntime-node";

/**
 * The file `import()` should load for `name`. In a source run this is the bare name
 * (ordinary resolution from the repository); in a compiled binary the package's entry
 * under the layout's lib folder. Throws NATIVE_MODULE_MISSING naming the folder searched.
 */
export function nativeModulePath(name: NativeModuleName): string {
  const layout = runtimeLayout();
  if (!layout.compiled) return name;
  const packageDir = join(layout.libDir, "node_modules", name);
  if (!existsSync(join(packageDir, "package.json"))) {
    throw new ClawboxError("NATIVE_MODULE_MISSING", `${name} not found in ${packageDir}`, {
      hint: "the binary's lib folder is incomplete; reinstall clawbox or rebuild with npm run build",
    });
  }
  return packageEntry(packageDir);
}

/** Prepares the process environment a native package needs before it is imported. */
function prepare(name: NativeModuleName): void {
  if (name === "onnxruntime-node") process.env.ORT_DISABLE_TELEMETRY ??= "1";
  // node-llama-cpp tests its backend by forking `process.execPath <its test script>`;
  // a compiled binary runs that script only when acting as plain Bun.
  if (name === "node-llama-cpp" && runtimeLayout().compiled) process.env.BUN_BE_BUN = "1";
}

/**
 * Imports a native package lazily. Use with the package's type:
 * `const { getLlama } = await importNative<typeof import("node-llama-cpp")>("node-llama-cpp")`.
 */
export async function importNative<T>(name: NativeModuleName): Promise<T> {
  const path = nativeModulePath(name);
  prepare(name);
  try {
    return (await import(path)) as T;
  } catch (error) {
    throw new ClawboxError(
      "NATIVE_MODULE_MISSING",
      `cannot load ${name} from ${path}: ${(error as Error).message}`,
      {
        cause: error,
        hint: runtimeLayout().compiled ? "check the binary's lib folder" : "run npm install",
      },
    );
  }
}
