/**
 * An embedding model that loads on first use. Its name and dimension come from the
 * installed model's metadata (clawbox-model.json), so the index can be checked and kept
 * current without onnxruntime; the ~25–95 MB model is loaded only when text must
 * actually be embedded (a search, or new notes to index), never at `clawbox run` start.
 */
import type { InstalledModel } from "../../models/index.ts";
import type { Embedder } from "./embedder.ts";

export interface LazyEmbedder extends Embedder {
  /** True once the model has been loaded (for status and tests). */
  readonly loaded: boolean;
}

export function lazyEmbedder(
  model: InstalledModel,
  load: () => Promise<Embedder>,
  onLoadFailed: (error: unknown) => void,
): LazyEmbedder {
  let inner: Promise<Embedder> | undefined;
  let loaded = false;
  const get = () => {
    inner ??= load().then(
      (embedder) => {
        loaded = true;
        return embedder;
      },
      (error: unknown) => {
        onLoadFailed(error);
        throw error;
      },
    );
    return inner;
  };
  return {
    name: model.name,
    dimension: model.dimension,
    get loaded() {
      return loaded;
    },
    async embed(texts) {
      return (await get()).embed(texts);
    },
    async close() {
      const embedder = inner ? await inner.catch(() => undefined) : undefined;
      await embedder?.close();
    },
  };
}
