/**
 * Sentence embeddings in-process with onnxruntime-node. The runtime and the tokenizer
 * are imported lazily (the box starts and chats without them); threads are always set
 * explicitly (the default oversubscribes a 2-core board) and telemetry is off. Works
 * with fp32 and int8-quantized exports alike: both take token ids and return floats.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ClawboxError, errorMessage } from "../../errors/index.ts";
import type { InstalledModel } from "../../models/index.ts";
import type { Embedder } from "./embedder.ts";
import { l2Normalize, poolRow } from "./pooling.ts";

export interface OnnxEmbedderOptions {
  threads: number;
  batchSize: number;
}

interface Encoded {
  ids: number[];
  typeIds: number[];
}

type OrtModule = typeof import("onnxruntime-node");
type Session = Awaited<ReturnType<OrtModule["InferenceSession"]["create"]>>;
type TokenizerInstance = InstanceType<typeof import("@huggingface/tokenizers")["Tokenizer"]>;

function fail(model: InstalledModel, what: string, cause?: unknown): ClawboxError {
  return new ClawboxError(
    "EMBEDDING_FAILED",
    `embedding model ${model.name} (${model.dir}): ${what}`,
    {
      hint: 'pull the model again (clawbox models pull) or set memory.embedding.model to "none"',
      cause,
    },
  );
}

class OnnxEmbedder implements Embedder {
  readonly name: string;
  readonly dimension: number;

  constructor(
    private readonly model: InstalledModel,
    private readonly ort: OrtModule,
    private readonly session: Session,
    private readonly tokenizer: TokenizerInstance,
    private readonly options: OnnxEmbedderOptions,
  ) {
    this.name = model.name;
    this.dimension = model.dimension;
  }

  private encode(text: string): Encoded {
    const enc = this.tokenizer.encode(text, { return_token_type_ids: true });
    let ids = enc.ids;
    let typeIds = enc.token_type_ids;
    const max = this.model.maxTokens;
    if (ids.length > max) {
      // Keep the closing special token ([SEP]) the model was trained to see.
      const last = ids[ids.length - 1] ?? 0;
      ids = [...ids.slice(0, max - 1), last];
      typeIds = typeIds.slice(0, max);
    }
    return { ids, typeIds };
  }

  private async runBatch(texts: string[]): Promise<Float32Array[]> {
    const { ort } = this;
    const encoded = texts.map((t) => this.encode(t));
    const seq = Math.max(1, ...encoded.map((e) => e.ids.length));
    const batch = encoded.length;
    const ids = new BigInt64Array(batch * seq);
    const mask = new BigInt64Array(batch * seq);
    const types = new BigInt64Array(batch * seq);
    const pad = BigInt(this.tokenizer.token_to_id("[PAD]") ?? 0);
    encoded.forEach((e, b) => {
      for (let t = 0; t < seq; t++) {
        const i = b * seq + t;
        const id = e.ids[t];
        ids[i] = id === undefined ? pad : BigInt(id);
        mask[i] = id === undefined ? 0n : 1n;
        types[i] = BigInt(e.typeIds[t] ?? 0);
      }
    });
    const all: Record<string, InstanceType<OrtModule["Tensor"]>> = {
      input_ids: new ort.Tensor("int64", ids, [batch, seq]),
      attention_mask: new ort.Tensor("int64", mask, [batch, seq]),
      token_type_ids: new ort.Tensor("int64", types, [batch, seq]),
    };
    const feeds: Record<string, InstanceType<OrtModule["Tensor"]>> = {};
    for (const name of this.session.inputNames) {
      const tensor = all[name];
      if (!tensor) throw fail(this.model, `unsupported model input "${name}"`);
      feeds[name] = tensor;
    }
    const outputName = this.session.outputNames.includes("last_hidden_state")
      ? "last_hidden_state"
      : this.session.outputNames[0];
    if (!outputName) throw fail(this.model, "model has no outputs");
    const result = await this.session.run(feeds);
    const output = result[outputName];
    if (!output || !(output.data instanceof Float32Array))
      throw fail(this.model, `output ${outputName} is not float32`);
    const dims = output.dims;
    const dim = dims[dims.length - 1] ?? 0;
    if (dim !== this.dimension) {
      throw fail(
        this.model,
        `output dimension ${dim} differs from clawbox-model.json dimension ${this.dimension}`,
      );
    }
    const data = output.data;
    const vectors: Float32Array[] = [];
    for (let b = 0; b < batch; b++) {
      const v =
        dims.length === 2
          ? Float32Array.from(data.subarray(b * dim, (b + 1) * dim))
          : poolRow(data, mask, b, Number(dims[1] ?? seq), dim, this.model.pooling);
      vectors.push(l2Normalize(v));
    }
    return vectors;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      const slice = texts.slice(i, i + this.options.batchSize);
      try {
        out.push(...(await this.runBatch(slice)));
      } catch (error) {
        if (error instanceof ClawboxError) throw error;
        throw fail(this.model, `inference failed: ${errorMessage(error)}`, error);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

/** Loads the model folder into an onnxruntime session (lazy import of the runtime). */
export async function createOnnxEmbedder(
  model: InstalledModel,
  options: OnnxEmbedderOptions,
): Promise<Embedder> {
  process.env.ORT_DISABLE_TELEMETRY = "1";
  let ort: OrtModule;
  let tokenizers: typeof import("@huggingface/tokenizers");
  try {
    ort = await import("onnxruntime-node");
    tokenizers = await import("@huggingface/tokenizers");
  } catch (error) {
    throw fail(model, "onnxruntime-node or the tokenizer library is not available", error);
  }
  let tokenizer: TokenizerInstance;
  try {
    const json: unknown = JSON.parse(readFileSync(model.tokenizerPath, "utf8"));
    const configPath = join(model.dir, "tokenizer_config.json");
    const config: unknown = existsSync(configPath)
      ? JSON.parse(readFileSync(configPath, "utf8"))
      : {};
    tokenizer = new tokenizers.Tokenizer(json as object, config as object);
  } catch (error) {
    throw fail(model, `cannot load tokenizer.json: ${errorMessage(error)}`, error);
  }
  let session: Session;
  try {
    session = await ort.InferenceSession.create(model.modelPath, {
      intraOpNumThreads: options.threads,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
      logSeverityLevel: 3,
    });
  } catch (error) {
    throw fail(model, `cannot load model.onnx: ${errorMessage(error)}`, error);
  }
  return new OnnxEmbedder(model, ort, session, tokenizer, options);
}
