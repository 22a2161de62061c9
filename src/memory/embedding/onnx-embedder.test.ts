import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTinyEmbedder } from "../../../test/fixtures/memory-test-env.ts";
import type { Embedder } from "./embedder.ts";
import { dot } from "./pooling.ts";

let dir: string;
let fp32: Embedder;
let int8: Embedder;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "clawbox-embedder-"));
  fp32 = await loadTinyEmbedder(join(dir, "fp32"), {});
  int8 = await loadTinyEmbedder(join(dir, "int8"), { quantized: true });
});
afterAll(async () => {
  await fp32.close();
  await int8.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("ONNX embedder (real onnxruntime, generated model)", () => {
  it("returns unit vectors of the model's dimension, batch order kept", async () => {
    const texts = ["coffee in the morning", "周六要带猫去看兽医", "", "a"];
    const vs = await fp32.embed(texts);
    expect(vs).toHaveLength(4);
    for (const v of vs) expect(v.length).toBe(64);
    for (const v of [vs[0], vs[1], vs[3]]) if (v) expect(dot(v, v)).toBeCloseTo(1, 4);
    const single = await fp32.embed(["周六要带猫去看兽医"]);
    const [one] = single;
    const [, batched] = vs;
    if (one && batched) expect(dot(one, batched)).toBeCloseTo(1, 5);
  });

  it("makes texts sharing words closer than unrelated ones", async () => {
    const [a, b, c] = await fp32.embed([
      "alice likes green tea",
      "alice likes tea",
      "server backup disk",
    ]);
    if (!a || !b || !c) throw new Error("missing vectors");
    expect(dot(a, b)).toBeGreaterThan(0.7);
    expect(dot(a, c)).toBeLessThan(0.4);
  });

  it("gives an int8-quantized model nearly the same vectors as the fp32 one", async () => {
    const texts = ["meeting with the team on monday", "天气预报说明天下雨"];
    const f = await fp32.embed(texts);
    const q = await int8.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const fv = f[i];
      const qv = q[i];
      if (fv && qv) expect(dot(fv, qv)).toBeGreaterThan(0.99);
    }
  });

  it("truncates text longer than maxTokens instead of failing", async () => {
    const long = Array.from({ length: 500 }, () => "garden").join(" ");
    const [v] = await fp32.embed([long]);
    expect(v?.length).toBe(64);
  });
});
