/**
 * Pulls a manifest model into `<modelsDir>/<name>/` file by file (each resumable and
 * verified), then writes `clawbox-model.json` last, so a folder without it is never
 * mistaken for a complete model. Chat models are one GGUF file; embedding models an ONNX
 * file and its tokenizer. With a mirror (`models.mirror`, `--mirror URL`) each file comes
 * from `<mirror>/<name>/<file>` instead of the manifest's URL, with the same size and
 * sha256 checks. A pull that fails before anything could be kept removes the folder it
 * created, so `<home>/models/` never holds an empty model folder.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import type { ManifestModel } from "./manifest.ts";
import { INSTALLED_INFO_FILE, installedModelDir } from "./manifest-installed.ts";
import { type PullFileResult, type PullProgress, pullFile } from "./pull-file.ts";
import { type PullRetry, withPullRetry } from "./pull-retry.ts";

export interface PullModelOptions {
  modelsDir: string;
  /** Accept files whose manifest entry has no sha256 (their computed sha256 is reported). */
  allowUnverified?: boolean;
  onProgress?: (progress: PullProgress) => void;
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
  /** Retry network failures with backoff (each retry resumes); without it one try. */
  retry?: PullRetry;
  /** Base URL of a mirror holding `<name>/<file>` (e.g. another box's models folder). */
  mirror?: string;
  /** The manifest file the model came from, named when a download URL fails. */
  manifestPath?: string;
}

export interface PullModelResult {
  dir: string;
  files: PullFileResult[];
  skipped: string[];
}

/** `<mirror>/<model>/<file>`, or the manifest's URL without a mirror. */
export function fileUrl(model: string, file: { name: string; url: string }, mirror?: string) {
  if (!mirror) return file.url;
  const base = mirror.endsWith("/") ? mirror : `${mirror}/`;
  return new URL(`${encodeURIComponent(model)}/${encodeURIComponent(file.name)}`, base).href;
}

export async function pullModel(
  model: ManifestModel,
  options: PullModelOptions,
): Promise<PullModelResult> {
  const unverified = model.files.filter((f) => f.sha256 === null).map((f) => f.name);
  if (unverified.length > 0 && !options.allowUnverified) {
    throw new ClawboxError(
      "MODEL_INVALID",
      `${model.name}: no published sha256 in the manifest for ${unverified.join(", ")}`,
      { hint: "pass --allow-unverified to download anyway (the computed sha256 is printed)" },
    );
  }
  const dir = installedModelDir(options.modelsDir, model.name);
  const created = !existsSync(dir);
  mkdirSync(dir, { recursive: true });
  try {
    return await pullInto(dir, model, options);
  } catch (error) {
    // Nothing to resume from (no .part): the folder this pull made goes again.
    if (created && readdirSync(dir).length === 0) rmdirSync(dir);
    throw error;
  }
}

async function pullInto(
  dir: string,
  model: ManifestModel,
  options: PullModelOptions,
): Promise<PullModelResult> {
  const files: PullFileResult[] = [];
  const skipped: string[] = [];
  const source = options.mirror
    ? `the mirror ${options.mirror} (models.mirror or --mirror)`
    : (options.manifestPath ?? "the model manifest");
  let modelSha: string | undefined;
  for (const file of model.files) {
    const dest = join(dir, file.name);
    if (existsSync(dest) && existsSync(join(dir, INSTALLED_INFO_FILE))) {
      skipped.push(file.name);
      continue;
    }
    const pull = () =>
      pullFile({
        url: fileUrl(model.name, file, options.mirror),
        dest,
        sha256: file.sha256,
        source,
        ...(file.size !== undefined ? { size: file.size } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.fetchImpl ? { fetchImpl: options.fetchImpl } : {}),
      });
    const result = options.retry
      ? await withPullRetry(pull, options.retry, options.signal)
      : await pull();
    if (file.name === "model.onnx") modelSha = result.sha256;
    files.push(result);
  }
  const info =
    model.kind === "chat"
      ? {
          name: model.name,
          kind: "chat",
          file: model.files[0]?.name,
          ...(files[0] ? { sha256: files[0].sha256 } : {}),
        }
      : {
          name: model.name,
          pooling: model.pooling,
          dimension: model.dimension,
          maxTokens: model.maxTokens,
          quantized: model.quantized,
          ...(modelSha ? { sha256: modelSha } : {}),
        };
  writeFileSync(join(dir, INSTALLED_INFO_FILE), `${JSON.stringify(info, null, 2)}\n`);
  return { dir, files, skipped };
}
