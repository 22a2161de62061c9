/**
 * The model manifest (models/manifest.json): which models `clawbox models pull` can
 * fetch, from where, with which checksum. Validated with zod so a broken manifest names
 * the entry and key at fault instead of failing mid-download.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { ClawboxError } from "../errors/index.ts";
import { runtimeLayout } from "../system/index.ts";

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits");

export const manifestFileSchema = z.object({
  /** File name inside the model folder. */
  name: z.string().regex(/^[A-Za-z0-9._-]+$/, "must be a plain file name"),
  url: z.string().url(),
  /** null: not verified when the entry was added (pull needs --allow-unverified). */
  sha256: sha256.nullable(),
  /** Exact size in bytes when known. */
  size: z.number().int().positive().optional(),
  approxSize: z.string().optional(),
});

export const manifestModelSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "lowercase letters, digits, . _ -"),
  kind: z.enum(["embedding"]),
  description: z.string().default(""),
  dimension: z.number().int().positive(),
  pooling: z.enum(["cls", "mean"]),
  maxTokens: z.number().int().positive(),
  quantized: z.boolean().default(false),
  license: z.string().optional(),
  files: z.array(manifestFileSchema).min(1),
  note: z.string().optional(),
});

export const manifestSchema = z.object({ models: z.array(manifestModelSchema) });

export type ManifestFile = z.infer<typeof manifestFileSchema>;
export type ManifestModel = z.infer<typeof manifestModelSchema>;
export type Manifest = z.infer<typeof manifestSchema>;

export function defaultManifestPath(): string {
  return join(runtimeLayout().root, "models", "manifest.json");
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
