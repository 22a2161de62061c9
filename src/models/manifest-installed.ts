/**
 * An installed model folder: `model.onnx`, `tokenizer.json` and `clawbox-model.json`
 * (name, pooling, dimension, maxTokens) — written by `clawbox models pull` from the
 * manifest, or by hand/by the test fixture for a custom model. The embedder reads only
 * this folder, never the network.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import { z } from "../schema/index.ts";

export const INSTALLED_INFO_FILE = "clawbox-model.json";

export const installedModelSchema = z.object({
  name: z.string().check(z.minLength(1)),
  pooling: z.enum(["cls", "mean"]),
  dimension: z.number().check(z.int(), z.positive()),
  maxTokens: z._default(z.number().check(z.int(), z.positive()), 512),
  quantized: z._default(z.boolean(), false),
  /** sha256 of model.onnx as verified (or computed) at pull time. */
  sha256: z.optional(z.string()),
});

export type InstalledModel = z.infer<typeof installedModelSchema> & {
  dir: string;
  modelPath: string;
  tokenizerPath: string;
};

/** Folder of a pulled model: `<modelsDir>/<name>`. */
export function installedModelDir(modelsDir: string, name: string): string {
  return join(modelsDir, name);
}

/** Reads an installed model folder, or undefined when it holds no complete model. */
export function readInstalledModel(dir: string): InstalledModel | undefined {
  const infoPath = join(dir, INSTALLED_INFO_FILE);
  const modelPath = join(dir, "model.onnx");
  const tokenizerPath = join(dir, "tokenizer.json");
  if (!existsSync(infoPath) || !existsSync(modelPath) || !existsSync(tokenizerPath))
    return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(infoPath, "utf8"));
  } catch (error) {
    throw new ClawboxError("MODEL_INVALID", `${infoPath}: not valid JSON`, {
      hint: "pull the model again with clawbox models pull",
      cause: error,
    });
  }
  const parsed = installedModelSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ClawboxError(
      "MODEL_INVALID",
      `${infoPath}: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid"}`,
      { hint: "pull the model again with clawbox models pull" },
    );
  }
  return { ...parsed.data, dir, modelPath, tokenizerPath };
}
