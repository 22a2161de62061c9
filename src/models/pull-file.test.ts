import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isClawboxError } from "../errors/index.ts";
import type { ManifestModel } from "./manifest.ts";
import { readInstalledModel } from "./manifest-installed.ts";
import { pullFile } from "./pull-file.ts";
import { pullModel } from "./pull-model.ts";

// Deterministic 3 MB payload standing in for a model file.
const payload = Buffer.alloc(3_000_000);
for (let i = 0; i < payload.length; i++) payload[i] = (i * 2654435761) >>> 24;
const sha = createHash("sha256").update(payload).digest("hex");

let server: Server;
let base: string;
let dir: string;
const seenRanges: (string | undefined)[] = [];
/** When set, the next full-body response is cut after this many bytes. */
let cutAfter: number | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "clawbox-pull-"));
  server = createServer((req, res) => {
    const range = req.headers.range;
    seenRanges.push(range);
    if (req.url === "/missing") {
      res.writeHead(404).end();
      return;
    }
    const match = range ? /^bytes=(\d+)-$/.exec(range) : null;
    const start = match?.[1] ? Number(match[1]) : 0;
    const body = payload.subarray(start);
    if (match) {
      res.writeHead(206, {
        "Content-Length": body.length,
        "Content-Range": `bytes ${start}-${payload.length - 1}/${payload.length}`,
      });
    } else res.writeHead(200, { "Content-Length": body.length });
    if (cutAfter !== undefined && !match) {
      const n = cutAfter;
      cutAfter = undefined;
      res.write(body.subarray(0, n), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe("pullFile", () => {
  it("downloads, verifies the sha256 and reports progress", async () => {
    const dest = join(dir, "full.bin");
    const seen: number[] = [];
    const result = await pullFile({
      url: `${base}/model`,
      dest,
      sha256: sha,
      onProgress: (p) => seen.push(p.received),
    });
    expect(result).toMatchObject({
      bytes: payload.length,
      sha256: sha,
      verified: true,
      resumedFrom: 0,
    });
    expect(readFileSync(dest).equals(payload)).toBe(true);
    expect(seen.at(-1)).toBe(payload.length);
    expect(existsSync(`${dest}.part`)).toBe(false);
  });

  it("resumes an interrupted download with a Range request into the .part file", async () => {
    const dest = join(dir, "resumed.bin");
    cutAfter = 1_000_000;
    seenRanges.length = 0;
    const first = await pullFile({ url: `${base}/model`, dest, sha256: sha }).catch(
      (e: unknown) => e,
    );
    expect(isClawboxError(first, "PROVIDER_NETWORK")).toBe(true);
    expect((first as Error).message).toContain("run the same command again");
    const partSize = statSync(`${dest}.part`).size;
    expect(partSize).toBeGreaterThan(0);
    expect(partSize).toBeLessThan(payload.length);
    expect(existsSync(dest)).toBe(false);

    const second = await pullFile({ url: `${base}/model`, dest, sha256: sha });
    expect(seenRanges.at(-1)).toBe(`bytes=${partSize}-`);
    expect(second.resumedFrom).toBe(partSize);
    expect(second.sha256).toBe(sha);
    expect(readFileSync(dest).equals(payload)).toBe(true);
  });

  it("fails clearly on a checksum mismatch and removes the partial file", async () => {
    const dest = join(dir, "bad.bin");
    const wrong = "0".repeat(64);
    const error = await pullFile({ url: `${base}/model`, dest, sha256: wrong }).catch(
      (e: unknown) => e,
    );
    expect(isClawboxError(error, "MODEL_INVALID")).toBe(true);
    expect((error as Error).message).toContain(`expected sha256 ${wrong}, got ${sha}`);
    expect(existsSync(dest)).toBe(false);
    expect(existsSync(`${dest}.part`)).toBe(false);
  });

  it("reports an HTTP error with the status", async () => {
    const error = await pullFile({ url: `${base}/missing`, dest: join(dir, "x.bin") }).catch(
      (e: unknown) => e,
    );
    expect(isClawboxError(error, "PROVIDER_BAD_RESPONSE")).toBe(true);
    expect((error as Error).message).toContain("HTTP 404");
  });
});

describe("pullModel", () => {
  const entry = (fileSha: string | null): ManifestModel => ({
    name: "local-test",
    kind: "embedding",
    description: "",
    dimension: 64,
    pooling: "mean",
    maxTokens: 128,
    quantized: false,
    files: [
      { name: "model.onnx", url: `${base}/model`, sha256: fileSha },
      { name: "tokenizer.json", url: `${base}/model`, sha256: sha },
    ],
  });

  it("refuses entries without a sha256 unless --allow-unverified", async () => {
    const modelsDir = join(dir, "models-a");
    const error = await pullModel(entry(null), { modelsDir }).catch((e: unknown) => e);
    expect(isClawboxError(error, "MODEL_INVALID")).toBe(true);
    expect((error as Error).message).toContain("--allow-unverified");
    const ok = await pullModel(entry(null), { modelsDir, allowUnverified: true });
    expect(ok.files.map((f) => f.verified)).toEqual([false, true]);
  });

  it("writes a complete model folder the embedder can read", async () => {
    const modelsDir = join(dir, "models-b");
    const result = await pullModel(entry(sha), { modelsDir });
    const installed = readInstalledModel(result.dir);
    expect(installed).toMatchObject({
      name: "local-test",
      pooling: "mean",
      dimension: 64,
      sha256: sha,
    });
    const again = await pullModel(entry(sha), { modelsDir });
    expect(again.skipped).toEqual(["model.onnx", "tokenizer.json"]);
  });
});
