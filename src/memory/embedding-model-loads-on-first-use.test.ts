/**
 * With an embedding model installed, `start()` (what `clawbox run` calls) indexes the
 * notes' text without loading the model; the first search loads it, embeds the pending
 * chunks and answers with vectors. The model is the generated tiny ONNX model through
 * the real onnxruntime. Boards default to the int8 variant.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeTinyEmbeddingModel } from "../../test/fixtures/tiny-embedding-model.ts";
import { configSchema } from "../config/index.ts";
import { Store } from "../store/index.ts";
import { homePaths, silentLogger } from "../system/index.ts";
import { createMemory, type MemoryService } from "./index.ts";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("the embedding model", () => {
  it("is not loaded at start; the first search loads it and embeds the notes", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-lazy-embed-"));
    const paths = homePaths(home);
    mkdirSync(join(paths.workspace, "memory"), { recursive: true });
    writeFileSync(
      join(paths.workspace, "MEMORY.md"),
      "# Notes\n\nThe garden hose is in the garage next to the bicycle.\n",
    );
    const modelDir = join(home, "models", "tiny");
    writeTinyEmbeddingModel(modelDir, { name: "tiny-int8", quantized: true });
    const store = Store.open({ path: paths.database });
    const config = configSchema.parse({
      memory: { watch: false, embedding: { dir: modelDir } },
    });
    const memory: MemoryService = createMemory({ config, store, paths, logger: silentLogger });
    cleanup = async () => {
      await memory.close();
      store.close();
      rmSync(home, { recursive: true, force: true });
    };

    await memory.start();
    const started = await memory.status();
    expect(started.model).toEqual({
      name: "tiny-int8",
      dimension: started.model?.dimension,
      loaded: false,
    });
    expect(started.chunks).toBeGreaterThan(0);
    expect(started.embeddedChunks).toBe(0);

    const found = await memory.search("where is the garden hose");
    expect(found.results.length).toBeGreaterThan(0);
    const after = await memory.status();
    expect(after.model?.loaded).toBe(true);
    expect(after.embeddedChunks).toBe(after.chunks);
  });

  it("defaults to the int8 variant of the bundled model", () => {
    expect(configSchema.parse({}).memory.embedding.model).toBe("bge-small-zh-v1.5-int8");
  });
});
