import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyGguf } from "../../test/fixtures/tiny-gguf.ts";
import { isClawboxError } from "../errors/index.ts";
import { readGgufHeader, validateModelFile } from "./index.ts";

let dir = "";
let good: Buffer = Buffer.alloc(0);
let dataOffset = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "clawbox-gguf-invalid-"));
  const path = join(dir, "good.gguf");
  await writeTinyGguf(path);
  good = await readFile(path);
  dataOffset = (await readGgufHeader(path)).tensorDataOffset;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, bytes: Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

/** The error readGgufHeader throws for `path` (fails the test if it resolves). */
async function headerError(path: string): Promise<unknown> {
  return readGgufHeader(path).then(
    () => expect.unreachable(`${path} was accepted`),
    (error: unknown) => error,
  );
}

function withU64(offset: number, value: bigint): Buffer {
  const copy = Buffer.from(good);
  copy.writeBigUInt64LE(value, offset);
  return copy;
}

describe("readGgufHeader on bad input", () => {
  it("rejects a non-GGUF file, an empty file and a directory, naming the file", async () => {
    const cases = [
      await write("text.gguf", Buffer.from("this is not a model\n")),
      await write("empty.gguf", new Uint8Array()),
    ];
    const subdir = join(dir, "a-directory.gguf");
    await mkdir(subdir);
    cases.push(subdir);
    for (const path of cases) {
      const error = await headerError(path);
      expect(isClawboxError(error, "MODEL_INVALID")).toBe(true);
      expect(String((error as Error).message)).toContain(path);
    }
  });

  it("rejects unsupported versions", async () => {
    const copy = Buffer.from(good);
    copy.writeUInt32LE(1, 4);
    const error = await headerError(await write("v1.gguf", copy));
    expect(error).toMatchObject({
      code: "MODEL_INVALID",
      message: expect.stringContaining("version 1"),
    });
  });

  it("rejects absurd tensor counts, metadata counts and string lengths without allocating", async () => {
    const absurd = [
      ["tensor-count.gguf", withU64(8, 1n << 60n), "tensor count"],
      ["kv-count.gguf", withU64(16, 0xffff_ffff_ffff_ffffn), "metadata count"],
      ["key-length.gguf", withU64(24, 1n << 40n), "string length"],
    ] as const;
    for (const [name, bytes, what] of absurd) {
      const error = await headerError(await write(name, bytes));
      expect(error).toMatchObject({
        code: "MODEL_INVALID",
        message: expect.stringContaining(what),
      });
    }
  });

  it("rejects the file truncated anywhere in the header or tensor data", async () => {
    const cuts = [3, 7, 20, 30];
    for (let cut = 40; cut < dataOffset; cut += 211) cuts.push(cut);
    cuts.push(dataOffset, dataOffset + 1000, good.length - 1);
    const path = join(dir, "truncated.gguf");
    for (const cut of cuts) {
      await writeFile(path, good.subarray(0, cut));
      const error = await headerError(path);
      expect(isClawboxError(error, "MODEL_INVALID"), `cut at ${cut}: ${String(error)}`).toBe(true);
      expect(String((error as Error).message)).toContain(path);
    }
  });

  it("never crashes on random corruption of the header: parses or says MODEL_INVALID", async () => {
    let state = 12345;
    const next = (limit: number): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state % limit;
    };
    const path = join(dir, "corrupt.gguf");
    let rejected = 0;
    for (let round = 0; round < 150; round++) {
      const copy = Buffer.from(good);
      for (let flips = 0; flips < 4; flips++) copy[next(dataOffset)] = next(256);
      await writeFile(path, copy);
      try {
        await readGgufHeader(path);
      } catch (error) {
        expect(isClawboxError(error, "MODEL_INVALID"), String(error)).toBe(true);
        rejected++;
      }
    }
    expect(rejected).toBeGreaterThan(0);
  });
});

describe("validateModelFile", () => {
  it("says MODEL_NOT_FOUND with the config hint for a missing file", async () => {
    const missing = join(dir, "nope.gguf");
    await expect(validateModelFile(missing)).rejects.toMatchObject({
      code: "MODEL_NOT_FOUND",
      message: expect.stringContaining(missing),
      hint: "set models.providers.local.path or CLAWBOX_MODEL_PATH",
    });
  });

  it("accepts the generated tiny model", async () => {
    const header = await validateModelFile(await write("ok.gguf", good));
    expect(header.architecture).toBe("llama");
  });

  it("rejects a file without general.architecture", async () => {
    const copy = Buffer.from(good);
    const at = copy.indexOf("general.architecture");
    copy.write("general.architectur_", at);
    await expect(validateModelFile(await write("no-arch.gguf", copy))).rejects.toMatchObject({
      code: "MODEL_INVALID",
      message: expect.stringContaining("general.architecture"),
    });
  });

  it("rejects an SPM vocabulary without byte tokens, which aborts llama.cpp natively", async () => {
    const path = join(dir, "no-byte-tokens.gguf");
    await writeTinyGguf(path, { byteTokens: false });
    await expect(validateModelFile(path)).rejects.toMatchObject({
      code: "MODEL_INVALID",
      message: expect.stringContaining("lacks byte tokens"),
    });
    // The hazard is real: loading it kills the process, so only ever try in a child.
    const script = [
      'import { getLlama } from "node-llama-cpp";',
      'const llama = await getLlama({ gpu: false, build: "never", maxThreads: 1 });',
      "try { await llama.loadModel({ modelPath: process.argv[1] }); console.log('loaded'); }",
      "catch { console.log('threw'); }",
      "await llama.dispose();",
    ].join("\n");
    const child = spawnSync(process.execPath, ["-e", script, path], {
      cwd: join(import.meta.dirname, "../.."),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.stdout).not.toContain("loaded");
    expect(child.signal === "SIGABRT" || child.status === 134, `child: ${child.status}`).toBe(true);
    expect(child.stderr).toContain("out_of_range");
  });
});
