/**
 * Compiles src/cli/main.ts into one executable with `Bun.build({ compile })`.
 * Packages with native code cannot live in the executable's embedded filesystem, and a
 * compiled binary cannot resolve bare package names from disk. So every
 * `import("node-llama-cpp")` / `import("onnxruntime-node")` in the sources is redirected
 * to a small generated module that loads the real package from the lib folder beside the
 * binary through src/system/native-module.ts (lazily: only when the import runs), and
 * re-exports its named exports, enumerated here from the installed package.
 *
 * Usage: bun scripts/build-compile.ts <x64|arm64> <outfile> <bun runtime for the target>
 */
import { resolve } from "node:path";
import { SERVICE_JIT_POLICY } from "../src/system/jit-policy.ts";

const NATIVE = ["node-llama-cpp", "onnxruntime-node"] as const;
const root = resolve(import.meta.dir, "..");
const [arch, outfile, runtime] = process.argv.slice(2);
if ((arch !== "x64" && arch !== "arm64") || !outfile || !runtime) {
  console.error("usage: build-compile.ts <x64|arm64> <outfile> <bun runtime>");
  process.exit(2);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

async function shimSource(name: string): Promise<string> {
  const names = Object.keys(await import(name)).filter(
    (n) => IDENTIFIER.test(n) && n !== "default",
  );
  const loader = JSON.stringify(resolve(root, "src/system/native-module.ts"));
  return [
    `import { importNative } from ${loader};`,
    `const m = await importNative(${JSON.stringify(name)});`,
    ...names.map((n) => `export const ${n} = m.${n};`),
    "export default m.default;",
  ].join("\n");
}

const shims = new Map<string, string>();
for (const name of NATIVE) shims.set(name, await shimSource(name));

const result = await Bun.build({
  entrypoints: [resolve(root, "src/cli/main.ts")],
  compile: {
    target: arch === "x64" ? "bun-linux-x64" : "bun-linux-arm64",
    outfile: resolve(outfile),
    executablePath: resolve(runtime),
    // Lets code loaded from lib/node_modules resolve its own dependencies there.
    autoloadPackageJson: true,
    autoloadDotenv: false,
    autoloadBunfig: false,
    // Every command starts with JavaScriptCore's tiers held back (src/system/jit-policy.ts):
    // start-up compiles nothing, READY is sooner and RSS lower.
    jitPolicy: SERVICE_JIT_POLICY,
  },
  minify: true,
  sourcemap: "none",
  // Precompiled bytecode: startup skips parsing the bundle (about half of boot time).
  bytecode: true,
  // Code splitting: every dynamically imported module (commands, MCP SDK, memory's
  // embedder, ...) becomes its own chunk inside the binary, loaded only when imported.
  // Without it the whole bundle's bytecode is loaded at start (RSS at READY 43.0 → 41.6 MB).
  splitting: true,
  format: "esm",
  plugins: [
    {
      name: "native-packages-from-lib",
      setup(build) {
        build.onResolve({ filter: /^(node-llama-cpp|onnxruntime-node)$/ }, (args) => ({
          path: args.path,
          namespace: "clawbox-native",
        }));
        build.onLoad({ filter: /.*/, namespace: "clawbox-native" }, (args) => ({
          loader: "js",
          contents: shims.get(args.path) ?? `throw new Error("no shim for ${args.path}");`,
        }));
      },
    },
  ],
});
for (const log of result.logs) console.error(String(log));
if (!result.success) process.exit(1);
console.log(`build-compile: ${outfile}`);
