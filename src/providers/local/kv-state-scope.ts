/**
 * What a saved KV-cache state depends on besides its tokens: the model file (by content
 * hash), the llama.cpp build that wrote it, and the context's settings (window, sequences,
 * batch, KV types, flash attention). llama.cpp loads a state into a context that differs in
 * any of these without a word, or refuses it only after reading, or crashes; so a state is
 * loaded only into a context whose scope is identical, compared before loading.
 * `STATE_FORMAT` is this project's own format (the metadata beside each state): a change
 * in how states are written bumps it, and states of another format are never loaded.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import type { Llama, LlamaContext } from "node-llama-cpp";

export const STATE_FORMAT = 1;

export interface KvStateScope {
  format: number;
  /** node-llama-cpp version and the llama.cpp release of its binary. */
  runtime: string;
  modelSha256: string;
  contextSize: number;
  sequences: number;
  batchSize: number;
  flashAttention: boolean;
  kvKeyType: number;
  kvValueType: number;
}

export function scopeOf(
  llama: Llama,
  runtimeVersion: string,
  modelSha256: string,
  context: LlamaContext,
): KvStateScope {
  const release = llama.llamaCppRelease;
  return {
    format: STATE_FORMAT,
    runtime: `node-llama-cpp ${runtimeVersion}; llama.cpp ${release.repo}@${release.release}`,
    modelSha256,
    contextSize: context.contextSize,
    sequences: context.totalSequences,
    batchSize: context.batchSize,
    flashAttention: context.flashAttention === true,
    kvKeyType: context.kvCacheKeyType,
    kvValueType: context.kvCacheValueType,
  };
}

/** Why a state saved under `saved` must not be loaded under `current`, or undefined. */
export function scopeMismatch(saved: KvStateScope, current: KvStateScope): string | undefined {
  if (saved.format !== current.format)
    return `written in state format ${saved.format} by another clawbox version (this one writes ${current.format})`;
  if (saved.runtime !== current.runtime)
    return `written by ${saved.runtime} (this is ${current.runtime})`;
  if (saved.modelSha256 !== current.modelSha256)
    return `saved with another model file (sha256 ${saved.modelSha256.slice(0, 12)}…, this one is ${current.modelSha256.slice(0, 12)}…)`;
  for (const key of [
    "contextSize",
    "sequences",
    "batchSize",
    "flashAttention",
    "kvKeyType",
    "kvValueType",
  ] as const) {
    if (saved[key] !== current[key])
      return `saved with ${key} ${String(saved[key])}, this context has ${String(current[key])}`;
  }
  return undefined;
}

/** Hex sha256 of a file, read as a stream (model files and states are hundreds of MB). */
export function sha256OfFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path, { highWaterMark: 1 << 20 })
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

/** Hex sha256 of a scope and token list: the file name of a state. */
export function stateId(
  scope: KvStateScope,
  owner: string | undefined,
  tokens?: readonly number[],
): string {
  const hash = createHash("sha256")
    .update(JSON.stringify(scope))
    .update(`\0${owner ?? ""}\0`);
  if (tokens) hash.update(new Uint8Array(Uint32Array.from(tokens).buffer));
  return hash.digest("hex").slice(0, 32);
}
