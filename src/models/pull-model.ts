/**
 * Pulls a manifest model into `<modelsDir>/<name>/` file by file (each resumable and
 * verified), then writes `clawbox-model.json` last, so a folder without it is never
 * mistaken for a complete model. Chat models are one GGUF file; embedding models an ONNX
 * file and its tokenizer.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
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
}

export interface PullModelResult {
  dir: string;
  files: PullFileResult[];
  skipped: string[];
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
  mkdirSync(dir, { recursive: true });
  const files: PullFileResult[] = [];
  const skipped: string[] = [];
  let modelSha: string | undefined;
  for (const file of model.files) {
    const dest = join(dir, file.name);
    if (existsSync(dest) && existsSync(join(dir, INSTALLED_INFO_FILE))) {
      skipped.push(file.name);
      continue;
    }
    const pull = () =>
      pullFile({
        url: file.url,
        dest,
        sha256: file.sha256,
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
