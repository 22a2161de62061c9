/**
 * The model manifest (models/manifest.json): which models `clawbox models pull` can
 * fetch, from where, with which checksum. Validated with zod so a broken manifest names
 * the entry and key at fault instead of failing mid-download.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import { z } from "../schema/index.ts";
import { runtimeLayout } from "../system/index.ts";

const sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits"));
/** A whole positive number (sizes, token counts, megabytes). */
const positiveInt = z.number().check(z.int(), z.positive());

export const manifestFileSchema = z.object({
  /** File name inside the model folder. */
  name: z.string().check(z.regex(/^[A-Za-z0-9._-]+$/, "must be a plain file name")),
  url: z.url(),
  /** null: not verified when the entry was added (pull needs --allow-unverified). */
  sha256: z.nullable(sha256),
  /** Exact size in bytes when known. */
  size: z.optional(positiveInt),
  approxSize: z.optional(z.string()),
});

const modelName = z
  .string()
  .check(z.regex(/^[a-z0-9][a-z0-9._-]*$/, "lowercase letters, digits, . _ -"));

export const embeddingModelSchema = z.object({
  name: modelName,
  kind: z.literal("embedding"),
  description: z._default(z.string(), ""),
  dimension: positiveInt,
  pooling: z.enum(["cls", "mean"]),
  maxTokens: positiveInt,
  quantized: z._default(z.boolean(), false),
  license: z.optional(z.string()),
  files: z.array(manifestFileSchema).check(z.minLength(1)),
  note: z.optional(z.string()),
});

/** A chat model: one GGUF file llama.cpp loads as the local provider. */
export const chatModelSchema = z.object({
  name: modelName,
  kind: z.literal("chat"),
  description: z._default(z.string(), ""),
  /** llama.cpp quantization of the file, e.g. "Q8_0", "Q4_K_M". */
  quantization: z.string().check(z.minLength(1)),
  /** Trained context length in tokens (the local provider caps its window at 8192). */
  contextLength: positiveInt,
  /** Total RAM (MB) a board needs to run it next to clawbox with a small window. */
  minRamMb: positiveInt,
  license: z.string().check(z.minLength(1)),
  /** Exactly one .gguf file, with its exact size (the recommendation checks free disk). */
  files: z
    .array(
      z.extend(manifestFileSchema, {
        name: z.string().check(z.regex(/^[A-Za-z0-9._-]+\.gguf$/, "must be a .gguf file name")),
        size: positiveInt,
      }),
    )
    .check(z.length(1)),
  note: z.optional(z.string()),
});

export const manifestModelSchema = z.discriminatedUnion("kind", [
  embeddingModelSchema,
  chatModelSchema,
]);

export const manifestSchema = z.object({ models: z.array(manifestModelSchema) });

export type ManifestFile = z.infer<typeof manifestFileSchema>;
export type ManifestModel = z.infer<typeof manifestModelSchema>;
export type EmbeddingManifestModel = z.infer<typeof embeddingModelSchema>;
export type ChatManifestModel = z.infer<typeof chatModelSchema>;
export type Manifest = z.infer<typeof manifestSchema>;

/** models/manifest.json beside the program; CLAWBOX_MODEL_MANIFEST points elsewhere (tests, mirrors). */
export function defaultManifestPath(env: Record<string, string | undefined> = process.env): string {
  return env.CLAWBOX_MODEL_MANIFEST || join(runtimeLayout().root, "models", "manifest.json");
}

export function loadManifest(path = defaultManifestPath()): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ClawboxError("CONFIG_UNREADABLE", `${path}: cannot read the model manifest`, {
      hint: "reinstall clawbox or restore models/manifest.json",
      cause: error,
    });
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ClawboxError(
      "CONFIG_INVALID",
      `${path}: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid manifest"}`,
    );
  }
  return parsed.data;
}

export function findManifestModel(manifest: Manifest, name: string): ManifestModel {
  const model = manifest.models.find((m) => m.name === name);
  if (!model) {
    throw new ClawboxError("MODEL_NOT_FOUND", `no model named "${name}" in the manifest`, {
      hint: `known models: ${manifest.models.map((m) => m.name).join(", ") || "none"}`,
    });
  }
  return model;
}
