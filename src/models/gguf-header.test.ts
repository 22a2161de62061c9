import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHATML_TEMPLATE, writeTinyGguf } from "../../test/fixtures/tiny-gguf.ts";
import { readGgufHeader, validateModelFile } from "./index.ts";

const STORIES = join(import.meta.dirname, "../../../shared/models/stories260K.gguf");
const SPM_VOCAB = join(import.meta.dirname, "../../../shared/models/ggml-vocab-llama-spm.gguf");
const haveStories = existsSync(STORIES);
const haveSpmVocab = existsSync(SPM_VOCAB);
if (!haveStories) console.warn(`skipping stories260K header test: ${STORIES} is absent`);
if (!haveSpmVocab) console.warn(`skipping vocab-only header test: ${SPM_VOCAB} is absent`);

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "clawbox-gguf-header-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("readGgufHeader", () => {
  it("reads the generated tiny model's architecture, sizes, vocab and chat template", async () => {
    const path = join(dir, "tiny.gguf");
    const info = await writeTinyGguf(path, { contextLength: 256, embeddingLength: 32 });
    const header = await readGgufHeader(path);
    expect(header).toMatchObject({
      version: 3,
      tensorCount: 2 + 1 + 2 * 9,
      sizeBytes: info.sizeBytes,
      alignment: 32,
      architecture: "llama",
      name: "clawbox tiny random llama",
      contextLength: 256,
      embeddingLength: 32,
      blockCount: 2,
      headCount: 4,
      fileType: 0,
      tokenizerModel: "llama",
      vocabSize: info.vocabSize,
      tokenScoresCount: info.vocabSize,
      tokenTypesCount: info.vocabSize,
      byteTokenCount: 256,
      hasAllByteTokens: true,
      hasChatTemplate: true,
    });
    expect(header.tensorDataOffset % 32).toBe(0);
    expect(header.metadata.get("tokenizer.chat_template")).toBe(CHATML_TEMPLATE);
    expect(header.metadata.get("tokenizer.ggml.tokens")).toEqual({
      kind: "array",
      itemType: 8,
      length: info.vocabSize,
    });
    expect(header.metadata.get("llama.attention.layer_norm_rms_epsilon")).toBeCloseTo(1e-5, 9);
  });

  it("writes the same bytes for the same seed and different weights for another", async () => {
    const [a, b, c] = [join(dir, "a.gguf"), join(dir, "b.gguf"), join(dir, "c.gguf")];
    await writeTinyGguf(a, { seed: 7 });
    await writeTinyGguf(b, { seed: 7 });
    await writeTinyGguf(c, { seed: 8 });
    const [bytesA, bytesB, bytesC] = await Promise.all([a, b, c].map((p) => readFile(p)));
    expect(bytesA?.equals(bytesB ?? Buffer.alloc(0))).toBe(true);
    expect(bytesA?.equals(bytesC ?? Buffer.alloc(0))).toBe(false);
    expect(bytesA?.length).toBeLessThan(2 * 1024 * 1024);
  });

  it("reports a vocabulary without byte tokens and without a chat template", async () => {
    const path = join(dir, "no-bytes.gguf");
    await writeTinyGguf(path, { byteTokens: false, chatTemplate: null });
    const header = await readGgufHeader(path);
    expect(header.byteTokenCount).toBe(0);
    expect(header.hasAllByteTokens).toBe(false);
    expect(header.hasChatTemplate).toBe(false);
  });

  it.skipIf(!haveStories)(
    "reads stories260K: llama, context 2048, 512-token SPM vocab",
    async () => {
      const header = await readGgufHeader(STORIES);
      expect(header).toMatchObject({
        version: 3,
        architecture: "llama",
        contextLength: 2048,
        embeddingLength: 64,
        blockCount: 5,
        tokenizerModel: "llama",
        vocabSize: 512,
        hasAllByteTokens: true,
        sizeBytes: 1_185_376,
      });
      await expect(validateModelFile(STORIES)).resolves.toMatchObject({ vocabSize: 512 });
    },
  );

  it.skipIf(!haveSpmVocab)(
    "reads a vocab-only file, which validates only when allowed",
    async () => {
      const header = await readGgufHeader(SPM_VOCAB);
      expect(header).toMatchObject({ tensorCount: 0, vocabSize: 32000, hasAllByteTokens: true });
      await expect(validateModelFile(SPM_VOCAB, { vocabOnly: true })).resolves.toBeTruthy();
      await expect(validateModelFile(SPM_VOCAB)).rejects.toMatchObject({
        code: "MODEL_INVALID",
        message: expect.stringContaining("no tensors"),
      });
    },
  );
});
