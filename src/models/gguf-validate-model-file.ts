/**
 * Checks a model file before node-llama-cpp loads it (and for `clawbox doctor`). Some
 * malformed GGUF files make llama.cpp abort the whole process in native code instead of
 * throwing, so everything known to do that is rejected here first, as a ClawboxError the
 * caller can show: MODEL_NOT_FOUND for a missing file, MODEL_INVALID for the rest.
 */
import { ClawboxError } from "../errors/index.ts";
import { type GgufHeader, readGgufHeader } from "./gguf-header.ts";

const PATH_HINT = "set models.providers.local.path or CLAWBOX_MODEL_PATH";

export interface ValidateModelOptions {
  /** Accept a tokenizer-only file without tensors (for `loadModel({ vocabOnly: true })`). */
  vocabOnly?: boolean;
}

/**
 * Validates the GGUF model at `path` and returns its header summary. Throws
 * MODEL_NOT_FOUND (with a hint naming the config key) or MODEL_INVALID.
 */
export async function validateModelFile(
  path: string,
  options: ValidateModelOptions = {},
): Promise<GgufHeader> {
  let header: GgufHeader;
  try {
    header = await readGgufHeader(path);
  } catch (error) {
    if (error instanceof ClawboxError && error.code === "MODEL_NOT_FOUND") {
      throw new ClawboxError("MODEL_NOT_FOUND", `${path}: model file not found`, {
        hint: PATH_HINT,
        cause: error,
        // A configured file that is not there (not "no model configured").
        details: { missingFile: true },
      });
    }
    throw error;
  }
  const problem = findProblem(header, options);
  if (problem) {
    throw new ClawboxError("MODEL_INVALID", `${path}: ${problem}`, {
      hint: "use a different GGUF model file",
      details: { path, architecture: header.architecture },
    });
  }
  return header;
}

function findProblem(header: GgufHeader, options: ValidateModelOptions): string | undefined {
  if (!header.architecture) return "GGUF file has no general.architecture";
  if (header.tensorCount === 0 && !options.vocabOnly) {
    return "GGUF file has no tensors (a tokenizer-only file cannot generate text)";
  }
  const vocab = header.vocabSize;
  if (header.tokenizerModel === "llama") {
    if (vocab === undefined) return "SentencePiece vocabulary has no tokenizer.ggml.tokens";
    if (!header.hasAllByteTokens) {
      return `SentencePiece vocabulary lacks byte tokens <0x00>..<0xFF> (${header.byteTokenCount} of 256 present); llama.cpp would abort loading it`;
    }
  }
  if (vocab !== undefined) {
    for (const [key, count] of [
      ["tokenizer.ggml.scores", header.tokenScoresCount],
      ["tokenizer.ggml.token_type", header.tokenTypesCount],
    ] as const) {
      if (count !== undefined && count !== vocab) {
        return `${key} has ${count} entries but tokenizer.ggml.tokens has ${vocab}`;
      }
    }
  }
  return undefined;
}
