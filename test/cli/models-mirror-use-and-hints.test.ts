/**
 * `clawbox models` as a first user meets it, against a file server on 127.0.0.1:
 * - a suggested pull command runs as suggested (an unverified manifest entry gets
 *   `--allow-unverified` in memory status, memory search and doctor);
 * - a pull that fails (404) names the manifest it read (CLAWBOX_MODEL_MANIFEST) and leaves
 *   no empty folder in <home>/models/;
 * - `--mirror URL` / `models.mirror` fetch `<URL>/<name>/<file>` with the same checks;
 * - one file's size reads the same in models list, pull, doctor and the recommendation;
 * - `models use NAME|PATH` validates the GGUF and writes the config in place.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatBytes } from "../../src/system/index.ts";
import { writeTinyGguf } from "../fixtures/tiny-gguf.ts";
import { runCli } from "../support/run-cli.ts";
import { spawnCli } from "../support/spawn-cli.ts";

let dir: string;
let server: ReturnType<typeof Bun.serve>;
let base: string;
let gguf: Buffer;
let ggufSha: string;
const EMBED = Buffer.from("embedding bytes ".repeat(4000));
/** Served at /mirror/<path>; anything else is 404 (the manifest's own URLs here). */
const mirror = new Map<string, Buffer>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "clawbox-models-cli-"));
  await writeTinyGguf(join(dir, "tiny.gguf"));
  gguf = readFileSync(join(dir, "tiny.gguf"));
  ggufSha = createHash("sha256").update(gguf).digest("hex");
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/embed/model.onnx" || path === "/embed/tokenizer.json")
        return new Response(EMBED);
      const file = path.startsWith("/mirror/") ? mirror.get(path.slice(8)) : undefined;
      return file ? new Response(file) : new Response("not here", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => {
  server?.stop(true);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const chatEntry = (name: string, sha256 = ggufSha) => ({
  name,
  kind: "chat",
  quantization: "F32",
  contextLength: 512,
  minRamMb: 64,
  license: "MIT",
  // The manifest's own URL is not served: only a mirror can deliver it.
  files: [{ name: `${name}.gguf`, url: `${base}/origin/${name}.gguf`, sha256, size: gguf.length }],
});

function writeManifest(name: string, models: unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ models }));
  return file;
}

function newHome(config?: string): string {
  const home = mkdtempSync(join(dir, "home-"));
  if (config !== undefined) writeFileSync(join(home, "clawbox.json"), config);
  return home;
}

describe("suggested pull commands", () => {
  it("memory status, memory search and doctor suggest a command that runs as written", async () => {
    const manifest = writeManifest("embed-manifest.json", [
      {
        name: "tiny-embed",
        kind: "embedding",
        dimension: 8,
        pooling: "mean",
        maxTokens: 64,
        files: [
          { name: "model.onnx", url: `${base}/embed/model.onnx`, sha256: null },
          { name: "tokenizer.json", url: `${base}/embed/tokenizer.json`, sha256: null },
        ],
      },
    ]);
    const home = newHome('{ memory: { embedding: { model: "tiny-embed" } } }');
    const env = { CLAWBOX_HOME: home, CLAWBOX_MODEL_MANIFEST: manifest };
    const status = await spawnCli(["memory", "status"], env);
    const suggested = /run "(clawbox models pull [^"]+)"/.exec(status.stdout)?.[1];
    expect(suggested).toBe("clawbox models pull tiny-embed --allow-unverified");
    const search = await spawnCli(["memory", "search", "anything"], env);
    expect(search.stderr).toContain(`run "${suggested}"`);
    const doctor = JSON.parse((await spawnCli(["doctor", "--json"], env)).stdout);
    const check = doctor.checks.find((c: { name: string }) => c.name === "memory.embedding");
    expect(check.fix).toBe(suggested);
    // The fix, run exactly as suggested, works.
    const pulled = await spawnCli((suggested as string).split(" ").slice(1), env);
    expect(pulled.stderr).not.toContain("no published sha256");
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toContain("tiny-embed installed in");
  }, 60_000);
});

describe("clawbox models pull", () => {
  it("a 404 names the manifest it came from and leaves no empty model folder", async () => {
    const manifest = writeManifest("chat-manifest.json", [chatEntry("tiny-chat")]);
    const home = newHome();
    const run = await runCli(["--home", home, "models", "pull", "tiny-chat"], {
      CLAWBOX_MODEL_MANIFEST: manifest,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("HTTP 404");
    expect(run.stderr).toContain(`check the URL in ${manifest} (CLAWBOX_MODEL_MANIFEST)`);
    expect(run.stderr).not.toContain("models/manifest.json");
    expect(existsSync(join(home, "models", "tiny-chat"))).toBe(false);
  });

  it("--mirror and models.mirror fetch <mirror>/<name>/<file> with the same sha256 check", async () => {
    const manifest = writeManifest("mirror-manifest.json", [
      chatEntry("tiny-chat"),
      chatEntry("bad-chat"),
    ]);
    mirror.set("tiny-chat/tiny-chat.gguf", gguf);
    mirror.set("bad-chat/bad-chat.gguf", Buffer.concat([gguf.subarray(0, -1), Buffer.from("x")]));
    const flagHome = newHome();
    const viaFlag = await spawnCli(
      ["--home", flagHome, "models", "pull", "tiny-chat", "--mirror", `${base}/mirror`],
      { CLAWBOX_MODEL_MANIFEST: manifest },
    );
    expect(viaFlag.stderr).not.toContain("HTTP 404");
    expect(viaFlag.code).toBe(0);
    expect(viaFlag.stdout).toContain("(verified)");
    // (Buffer.equals: vitest's deep equality walks 600 kB byte by byte for seconds.)
    expect(readFileSync(join(flagHome, "models", "tiny-chat", "tiny-chat.gguf")).equals(gguf)).toBe(
      true,
    );
    const configHome = newHome(`{ models: { mirror: "${base}/mirror/" } }`);
    const viaConfig = await spawnCli(["--home", configHome, "models", "pull", "tiny-chat"], {
      CLAWBOX_MODEL_MANIFEST: manifest,
    });
    expect(viaConfig.code).toBe(0);
    expect(viaConfig.stdout).toContain("(verified)");
    const bad = await spawnCli(["--home", configHome, "models", "pull", "bad-chat"], {
      CLAWBOX_MODEL_MANIFEST: manifest,
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("checksum mismatch");
    expect(existsSync(join(configHome, "models", "bad-chat", "bad-chat.gguf"))).toBe(false);
    const notUrl = await runCli(
      ["--home", configHome, "models", "pull", "tiny-chat", "--mirror", "lan box"],
      {
        CLAWBOX_MODEL_MANIFEST: manifest,
      },
    );
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toContain("--mirror lan box: not a URL");
  });

  it("writes one file's size the same way in models list, pull, doctor and the recommendation", async () => {
    const manifest = writeManifest("size-manifest.json", [chatEntry("tiny-chat")]);
    mirror.set("tiny-chat/tiny-chat.gguf", gguf);
    const home = newHome(`{ models: { mirror: "${base}/mirror" } }`);
    const env = { CLAWBOX_MODEL_MANIFEST: manifest };
    const size = formatBytes(gguf.length);
    expect(size).toMatch(/^\d+(\.\d+)? kB$/);
    const listed = await runCli(["--home", home, "models", "list"], env);
    expect(listed.stdout).toContain(`tiny-chat  chat F32 ctx 512 min RAM 64 MB MIT  ${size}`);
    expect(listed.stdout).toContain(`recommended: tiny-chat (F32, ${size}) fits`);
    const pulled = await spawnCli(["--home", home, "models", "pull", "tiny-chat"], env);
    expect(pulled.stdout).toContain(`tiny-chat.gguf: ${size}, sha256 ${ggufSha} (verified)`);
    const doctor = await runCli(["--home", home, "doctor"], env);
    expect(doctor.stdout).toMatch(
      new RegExp(`tiny-chat\\.gguf: GGUF v3, llama, context 512, ${size}`),
    );
    for (const out of [listed.stdout, pulled.stdout, doctor.stdout])
      expect(out).not.toMatch(/\d+ B\b|MiB|\d bytes/);
  }, 60_000);
});

describe("clawbox models use", () => {
  it("switches to an installed model or a GGUF path, keeping the config's comments", async () => {
    const manifest = writeManifest("use-manifest.json", [
      chatEntry("tiny-chat"),
      chatEntry("other-chat"),
    ]);
    mirror.set("tiny-chat/tiny-chat.gguf", gguf);
    const home = newHome(
      `{
  // my cloud model first
  models: { mirror: "${base}/mirror", primary: "cloud", fallbacks: ["local"],
    providers: { cloud: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" },
      local: { kind: "local" } } },
}
`,
    );
    const env = { CLAWBOX_MODEL_MANIFEST: manifest };
    expect((await spawnCli(["--home", home, "models", "pull", "tiny-chat"], env)).code).toBe(0);
    const config = join(home, "clawbox.json");
    const used = await runCli(["--home", home, "models", "use", "tiny-chat"], env);
    expect(used.stderr).toBe("");
    expect(used.code).toBe(0);
    const installed = join(home, "models", "tiny-chat", "tiny-chat.gguf");
    expect(used.stdout).toContain(`models.providers.local.path set to ${installed}`);
    const text = readFileSync(config, "utf8");
    expect(text).toContain("// my cloud model first");
    const parsed = JSON5.parse(text);
    expect(parsed.models.primary).toBe("local");
    expect(parsed.models.fallbacks).toEqual([]);
    expect(parsed.models.providers.local).toEqual({ kind: "local", path: installed });
    expect(parsed.models.providers.cloud.model).toBe("m");
    // A path works too (relative to where the command runs: given absolute here).
    const byPath = await runCli(["--home", home, "models", "use", join(dir, "tiny.gguf")], env);
    expect(byPath.code).toBe(0);
    expect(JSON5.parse(readFileSync(config, "utf8")).models.providers.local.path).toBe(
      join(dir, "tiny.gguf"),
    );
    const before = statSync(config).mtimeMs;
    const notInstalled = await runCli(["--home", home, "models", "use", "other-chat"], env);
    expect(notInstalled.code).toBe(2);
    expect(notInstalled.stderr).toContain("other-chat is not installed");
    expect(notInstalled.stderr).toContain('run "clawbox models pull other-chat" first');
    const unknown = await runCli(["--home", home, "models", "use", "nosuch"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no installed chat model named "nosuch"');
    const missing = await runCli(["--home", home, "models", "use", "/nonexistent/x.gguf"], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("/nonexistent/x.gguf: model file not found");
    writeFileSync(join(dir, "not-a-model.gguf"), "hello");
    const invalid = await runCli(
      ["--home", home, "models", "use", join(dir, "not-a-model.gguf")],
      env,
    );
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain("not-a-model.gguf");
    // Refusals changed nothing.
    expect(statSync(config).mtimeMs).toBe(before);
  }, 60_000);
});
