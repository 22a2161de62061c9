/**
 * `clawbox models list|pull --recommended` with chat models served from 127.0.0.1: the
 * board's recommendation is marked, the pulled GGUF is verified and becomes the local
 * model in the config file (comments kept), and an already configured model is never
 * replaced behind the owner's back. `doctor` names the same recommendation.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyGguf } from "../fixtures/tiny-gguf.ts";
import { runCli } from "../support/run-cli.ts";

describe("clawbox models pull --recommended", () => {
  let dir: string;
  let server: ReturnType<typeof Bun.serve>;
  let manifest: string;
  let sha: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "clawbox-models-rec-"));
    const file = join(dir, "tiny.gguf");
    await writeTinyGguf(file);
    const data = readFileSync(file);
    sha = createHash("sha256").update(data).digest("hex");
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(data) });
    const entry = (name: string, minRamMb: number) => ({
      name,
      kind: "chat",
      quantization: "F32",
      contextLength: 512,
      minRamMb,
      license: "MIT",
      files: [
        {
          name: `${name}.gguf`,
          url: `http://127.0.0.1:${server.port}/${name}`,
          sha256: sha,
          size: data.length,
        },
      ],
    });
    manifest = join(dir, "manifest.json");
    writeFileSync(
      manifest,
      JSON.stringify({ models: [entry("tiny-chat", 64), entry("huge-chat", 100_000_000)] }),
    );
  });
  afterAll(() => {
    server?.stop(true);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("marks the recommended model, pulls it, and makes it the local model (replacing a path to a missing file) keeping the config's comments", async () => {
    const home = join(dir, "home");
    const config = join(dir, "home", "clawbox.json");
    const listed = await runCli(["--home", home, "models", "list", "--manifest", manifest]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/tiny-chat .*<- recommended/);
    expect(listed.stdout).not.toMatch(/huge-chat .*<- recommended/);
    expect(listed.stdout).toContain("clawbox models pull tiny-chat");
    writeFileSync(
      config,
      "// my box\n{\n  log: { level: 'warn' }, // quiet\n  models: { providers: { local: { kind: 'local', path: '/nonexistent/model.gguf' } } },\n}\n",
    );
    const pulled = await runCli([
      "--home",
      home,
      "models",
      "pull",
      "--recommended",
      "--manifest",
      manifest,
    ]);
    expect(pulled.stderr).not.toContain("error");
    expect(pulled.code).toBe(0);
    const path = join(home, "models", "tiny-chat", "tiny-chat.gguf");
    expect(pulled.stdout).toContain(`sha256 ${sha} (verified)`);
    expect(pulled.stdout).toContain(
      `models.providers.local.path set to ${path} (was /nonexistent/model.gguf, which does not exist)`,
    );
    const text = readFileSync(config, "utf8");
    expect(text).toContain("// my box");
    expect(text).toContain("// quiet");
    expect(JSON5.parse(text).models.providers.local).toMatchObject({ kind: "local", path });

    const other = await runCli([
      "--home",
      home,
      "models",
      "pull",
      "huge-chat",
      "--manifest",
      manifest,
    ]);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain("left as it is");
    expect(JSON5.parse(readFileSync(config, "utf8")).models.providers.local.path).toBe(path);
  });

  it("doctor names the recommended model and the exact command", async () => {
    const home = join(dir, "fresh");
    const doctor = await runCli(["--home", home, "doctor", "--json"], {
      CLAWBOX_MODEL_MANIFEST: manifest,
    });
    const checks = JSON.parse(doctor.stdout).checks as { name: string; fix?: string }[];
    const local = checks.find((c) => c.name === "model local");
    const rec = checks.find((c) => c.name === "model recommendation");
    expect(rec?.fix).toMatch(/^clawbox models pull \S+$/);
    expect(local?.fix).toContain(rec?.fix ?? "missing");
  });
});
