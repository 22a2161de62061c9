import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyEmbeddingModel } from "../fixtures/tiny-embedding-model.ts";
import { runCli } from "../support/run-cli.ts";

let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "clawbox-cli-memory-"));
  const ws = join(home, "workspace");
  mkdirSync(join(ws, "memory"), { recursive: true });
  writeFileSync(
    join(ws, "MEMORY.md"),
    "# Memory\n\n- The wifi router sits behind the bookshelf.\n",
  );
  writeFileSync(
    join(ws, "memory", "2025-05-01.md"),
    "# 会议\n\n周一上午和团队开会讨论项目进度。\n",
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("clawbox memory", () => {
  it("search --json prints {mode, results} and reports keyword-only mode without a model", async () => {
    const run = await runCli(["--home", home, "memory", "search", "wifi router", "--json"]);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      mode: string;
      reason?: string;
      results: Record<string, unknown>[];
    };
    expect(out.mode).toBe("keyword");
    expect(out.reason).toContain("clawbox models pull");
    expect(out.results[0]).toEqual({
      source: "memory",
      path: "MEMORY.md",
      startLine: 1,
      endLine: 3,
      score: expect.any(Number),
      textScore: 1,
      snippet: expect.stringContaining("wifi router"),
    });
  });

  it("uses the configured ONNX model folder: hybrid mode, Chinese query", async () => {
    const modelDir = join(home, "tiny-model");
    writeTinyEmbeddingModel(modelDir);
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({ memory: { embedding: { dir: modelDir } } }),
    );
    const index = await runCli(["--home", home, "memory", "index", "--json"]);
    expect(index.code).toBe(0);
    expect(JSON.parse(index.stdout)).toMatchObject({ files: 2, embedded: 2 });
    const run = await runCli(["--home", home, "memory", "search", "团队开会", "--json"]);
    const out = JSON.parse(run.stdout) as { mode: string; results: { path: string }[] };
    expect(out.mode).toBe("hybrid");
    expect(out.results[0]?.path).toBe("memory/2025-05-01.md");
    const status = await runCli(["--home", home, "memory", "status", "--json"]);
    expect(JSON.parse(status.stdout)).toMatchObject({
      mode: "hybrid",
      chunks: 2,
      embeddedChunks: 2,
      recalls: 2,
    });
    rmSync(join(home, "clawbox.json"));
  });

  it("rejects a search without a query as a usage error", async () => {
    const run = await runCli(["--home", home, "memory", "search"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("search needs a QUERY");
  });
});

describe("clawbox models pull", () => {
  let server: Server;
  let base: string;
  const body = Buffer.from("tiny model bytes ".repeat(5000));
  beforeAll(async () => {
    server = createServer((_req, res) =>
      res.writeHead(200, { "Content-Length": body.length }).end(body),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise((r) => server.close(r)));

  it("downloads and verifies every file of a manifest entry, and fails clearly on a bad checksum", async () => {
    const sha = createHash("sha256").update(body).digest("hex");
    const manifest = (s: string) => ({
      models: [
        {
          name: "tiny",
          kind: "embedding",
          dimension: 64,
          pooling: "mean",
          maxTokens: 128,
          files: [
            { name: "model.onnx", url: `${base}/m`, sha256: s },
            { name: "tokenizer.json", url: `${base}/t`, sha256: sha },
          ],
        },
      ],
    });
    const good = join(home, "manifest-good.json");
    writeFileSync(good, JSON.stringify(manifest(sha)));
    const ok = await runCli(["--home", home, "models", "pull", "tiny", "--manifest", good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("(verified)");
    expect(ok.stderr).toContain("model.onnx [");
    const list = await runCli(["--home", home, "models", "list", "--json", "--manifest", good]);
    expect(JSON.parse(list.stdout)[0]).toMatchObject({
      name: "tiny",
      installed: true,
      verified: true,
    });

    const bad = join(home, "manifest-bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ models: [{ ...manifest("f".repeat(64)).models[0], name: "tiny-bad" }] }),
    );
    const fail = await runCli(["--home", home, "models", "pull", "tiny-bad", "--manifest", bad]);
    expect(fail.code).toBe(1);
    expect(fail.stderr).toContain("checksum mismatch");
    const unknown = await runCli(["--home", home, "models", "pull", "nope", "--manifest", good]);
    expect(unknown.stderr).toContain("known models: tiny");
  });
});
