/**
 * The process-wide llama.cpp runtime. node-llama-cpp is imported lazily, so processes
 * that never chat do not pay for loading it; `getLlama` runs once per process with an
 * explicit thread count (the default oversubscribes small boards by ~1000x), and each
 * model file is validated before loading (a malformed GGUF can abort the process in
 * native code) and then loaded once per path and shared until its last user releases it.
 *
 * Starting the runtime, node-llama-cpp first tests its binary in a child process of ours
 * (same process group). A Ctrl-C in the terminal reaches that child too and kills it, and
 * node-llama-cpp then printed a stack trace and gave up. Its console output goes to our
 * log (debug) instead, and a failed start is tried once more: the Ctrl-C that killed the
 * test process is the one the service drains on, and the reply it lets finish needs the
 * runtime.
 */
import type { Llama, LlamaModel } from "node-llama-cpp";
import { ClawboxError, errorMessage, isClawboxError } from "../../errors/index.ts";
import { validateModelFile } from "../../models/index.ts";
import type { Logger } from "../../system/index.ts";

let llamaPromise: Promise<Llama> | undefined;
const models = new Map<string, { model: Promise<LlamaModel>; users: number }>();

/** The one Llama instance of this process; `threads` of the first caller wins. */
export function loadLlama(threads: number, logger?: Logger): Promise<Llama> {
  if (!llamaPromise) {
    llamaPromise = (async () => {
      const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
      const start = () =>
        withConsoleInLog(logger, () =>
          getLlama({
            gpu: false,
            build: "never",
            maxThreads: threads,
            logLevel: LlamaLogLevel.error,
            logger: (level, message) =>
              logger?.debug("llama.cpp", { level, message: message.trim() }),
          }),
        );
      try {
        return await start();
      } catch (error) {
        logger?.debug("llama.cpp runtime did not start; trying once more", {
          error: errorMessage(error),
        });
        return await start();
      }
    })();
    llamaPromise.catch(() => {
      llamaPromise = undefined;
    });
  }
  return llamaPromise.catch((error: unknown) => {
    throw new ClawboxError(
      "MODEL_LOAD_FAILED",
      `llama.cpp runtime failed to start: ${errorMessage(error)}`,
      {
        hint: "check that node-llama-cpp has a prebuilt binary for this platform",
        cause: error,
      },
    );
  });
}

/**
 * Validates and loads the GGUF at `path`, or returns the already loaded model. Throws
 * MODEL_NOT_FOUND / MODEL_INVALID (validation) or MODEL_LOAD_FAILED (llama.cpp).
 */
export async function acquireModel(
  path: string,
  threads: number,
  logger?: Logger,
): Promise<LlamaModel> {
  const existing = models.get(path);
  if (existing) {
    existing.users += 1;
    try {
      return await existing.model;
    } catch (error) {
      existing.users -= 1;
      throw error;
    }
  }
  const entry = { model: loadModelFile(path, threads, logger), users: 1 };
  models.set(path, entry);
  try {
    return await entry.model;
  } catch (error) {
    models.delete(path);
    throw error;
  }
}

/** Drops one user of the model at `path`; the last one unloads it. */
export async function releaseModel(path: string): Promise<void> {
  const entry = models.get(path);
  if (!entry) return;
  entry.users -= 1;
  if (entry.users > 0) return;
  models.delete(path);
  const model = await entry.model.catch(() => undefined);
  await model?.dispose();
}

async function loadModelFile(path: string, threads: number, logger?: Logger): Promise<LlamaModel> {
  await validateModelFile(path);
  const llama = await loadLlama(threads, logger);
  try {
    return await llama.loadModel({ modelPath: path, gpuLayers: 0 });
  } catch (error) {
    if (isClawboxError(error)) throw error;
    throw new ClawboxError(
      "MODEL_LOAD_FAILED",
      `${path}: llama.cpp could not load the model: ${errorMessage(error)}`,
      {
        hint: "the file may be damaged, of an unsupported architecture, or too large for memory",
        cause: error,
      },
    );
  }
}

/**
 * Runs `task` with console output (what node-llama-cpp prints while it finds and tests its
 * binary) sent to `logger` at debug level, one line per call, without stack traces.
 */
async function withConsoleInLog<T>(logger: Logger | undefined, task: () => Promise<T>): Promise<T> {
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  const toLog =
    (level: string) =>
    (...args: unknown[]) =>
      logger?.debug("node-llama-cpp", { level, message: args.map(errorMessage).join(" ").trim() });
  console.log = toLog("log");
  console.info = toLog("info");
  console.warn = toLog("warn");
  console.error = toLog("error");
  try {
    return await task();
  } finally {
    Object.assign(console, saved);
  }
}
