/**
 * A local model's own tokenizer and chat template without its weights: the GGUF is
 * loaded vocabulary-only (fast, a few MB). `clawbox context` counts with it, so its
 * report matches what a turn (and `/context list` in a chat) counts with the loaded model.
 */
import { validateModelFile } from "../../models/index.ts";
import type { Logger } from "../../system/index.ts";
import type { ChatTemplate } from "../provider.ts";
import { chatTemplateOf } from "./chat-template.ts";
import { loadLlama } from "./llama-runtime.ts";

export interface LocalTokenizer {
  countTokens(text: string): Promise<number>;
  chatTemplate(): Promise<ChatTemplate>;
  dispose(): Promise<void>;
}

/** Throws MODEL_NOT_FOUND / MODEL_INVALID / MODEL_LOAD_FAILED as loading the model would. */
export async function openLocalTokenizer(
  path: string,
  threads: number,
  logger?: Logger,
): Promise<LocalTokenizer> {
  await validateModelFile(path);
  const llama = await loadLlama(threads, logger);
  const model = await llama.loadModel({ modelPath: path, vocabOnly: true });
  let template: Promise<ChatTemplate> | undefined;
  return {
    // As LocalProvider.countTokens: plain text, special tokens not parsed.
    countTokens: async (text) => model.tokenize(text, false).length,
    chatTemplate: () => {
      template ??= chatTemplateOf(model);
      return template;
    },
    dispose: () => model.dispose(),
  };
}
