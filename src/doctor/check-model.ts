/**
 * The local model file exists and is a GGUF llama.cpp can load (header, size,
 * architecture, context), and which chat template it will be prompted with. Naming the
 * template means loading llama.cpp (vocabulary only); a running service (the console's
 * Status page) asks for the header-only form instead, which says whether the GGUF carries
 * its own template without loading anything.
 */
import { statSync } from "node:fs";
import type { ModelsConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import {
  boardResources,
  loadManifest,
  recommendChatModel,
  validateModelFile,
} from "../models/index.ts";
import { chatTemplateOfFile, describeChatTemplate } from "../providers/index.ts";
import { formatBytes } from "../system/index.ts";
import type { CheckResult } from "./doctor-check.ts";

/** The chat model recommended for this board's RAM and free disk (manifest chat models). */
export function checkModelRecommendation(modelsDir: string, manifestPath?: string): CheckResult {
  try {
    const manifest = manifestPath ? loadManifest(manifestPath) : loadManifest();
    const board = boardResources(modelsDir);
    const rec = recommendChatModel(manifest, board);
    return {
      name: "model recommendation",
      status: rec.model ? "ok" : "warn",
      message: rec.reason,
      ...(rec.command ? { fix: rec.command } : {}),
    };
  } catch (error) {
    return {
      name: "model recommendation",
      status: "warn",
      message: errorMessage(error),
    };
  }
}

export interface CheckModelsOptions {
  /** "full" (default, `clawbox doctor`): name the wrapper via llama.cpp; "header": GGUF metadata only. */
  chatTemplate?: "full" | "header";
}

export async function checkModels(
  models: ModelsConfig,
  modelsDir?: string,
  options: CheckModelsOptions = {},
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const recommendation = modelsDir ? checkModelRecommendation(modelsDir) : undefined;
  for (const [id, provider] of Object.entries(models.providers)) {
    if (provider.kind !== "local") {
      const keys = provider.authProfiles.length;
      results.push({
        name: `model ${id}`,
        status: keys > 0 ? "ok" : "warn",
        message: `${provider.kind} ${provider.model} at ${provider.baseUrl} (${keys} API key profile${keys === 1 ? "" : "s"})`,
        ...(keys > 0 ? {} : { fix: `add models.providers.${id}.authProfiles with an apiKey` }),
      });
      continue;
    }
    if (!provider.path) {
      results.push({
        name: `model ${id}`,
        status: "warn",
        message: "no model file configured: chat will not work",
        fix: recommendation?.fix
          ? `${recommendation.fix} (it becomes models.providers.${id}.path), or set CLAWBOX_MODEL_PATH to a GGUF file`
          : `set models.providers.${id}.path or CLAWBOX_MODEL_PATH to a GGUF file`,
      });
      continue;
    }
    try {
      const info = await validateModelFile(provider.path);
      const size = statSync(provider.path).size;
      results.push({
        name: `model ${id}`,
        status: "ok",
        message: `${provider.path}: GGUF v${info.version}, ${info.architecture}, context ${info.contextLength ?? "?"}, ${formatBytes(size)}`,
      });
      results.push(
        options.chatTemplate === "header"
          ? chatTemplateFromHeader(id, info.metadata.has("tokenizer.chat_template"))
          : await checkChatTemplate(id, provider.path, provider.threads),
      );
    } catch (error) {
      results.push({
        name: `model ${id}`,
        status: "fail",
        message: errorMessage(error),
        fix: `point models.providers.${id}.path at a valid GGUF file`,
      });
    }
  }
  if (recommendation) results.push(recommendation);
  return results;
}

function chatTemplateFromHeader(id: string, inFile: boolean): CheckResult {
  return {
    name: `model ${id} chat template`,
    status: "ok",
    message: inFile
      ? "the GGUF carries its own chat template (`clawbox doctor` names the wrapper)"
      : "no chat template in the GGUF: guessed from the model's name and architecture (`clawbox doctor` names it)",
  };
}

async function checkChatTemplate(id: string, path: string, threads: number): Promise<CheckResult> {
  const name = `model ${id} chat template`;
  try {
    const template = await chatTemplateOfFile(path, threads);
    return {
      name,
      status: template.source === "fallback" ? "warn" : "ok",
      message: describeChatTemplate(template),
      ...(template.source === "fallback"
        ? { fix: "use a GGUF whose tokenizer.chat_template node-llama-cpp can render" }
        : {}),
    };
  } catch (error) {
    return {
      name,
      status: "warn",
      message: `could not read the chat template: ${errorMessage(error)}`,
    };
  }
}
