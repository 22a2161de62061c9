/**
 * Memory: the index of MEMORY.md and memory/*.md, the local ONNX embedding model,
 * hybrid search weights (SPEC §8 defaults) and the opt-in dreaming schedule.
 */
import { z } from "../../schema/index.ts";

const nonEmpty = z.string().check(z.minLength(1));
const fraction = z.number().check(z.minimum(0), z.maximum(1));
const offByDefault = z._default(z.boolean(), false);

const embedding = z.prefault(
  z.object({
    /**
     * Manifest name of the model (models/manifest.json), or "none" for keyword-only.
     * Default: the int8 variant (~4x smaller in memory than fp32 on a small board).
     */
    model: z._default(nonEmpty, "bge-small-zh-v1.5-int8"),
    /** A model folder (model.onnx + tokenizer.json + clawbox-model.json); overrides `model`. */
    dir: z.optional(nonEmpty),
    /** onnxruntime intra-op threads. Always explicit: the default oversubscribes small boards. */
    threads: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(16)), 1),
    batchSize: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(256)), 16),
  }),
  {},
);

const search = z.prefault(
  z.object({
    vectorWeight: z._default(fraction, 0.7),
    textWeight: z._default(fraction, 0.3),
    candidateMultiplier: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(20)), 4),
    minScore: z._default(fraction, 0.35),
    maxResults: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(50)), 6),
    mmr: z.prefault(
      z.object({
        enabled: offByDefault,
        /** 1 = relevance only, 0 = diversity only. */
        lambda: z._default(fraction, 0.7),
      }),
      {},
    ),
    temporalDecay: z.prefault(
      z.object({
        enabled: offByDefault,
        /** Dated notes (memory/YYYY-MM-DD.md) lose half their score after this many days. */
        halfLifeDays: z._default(z.number().check(z.minimum(1)), 30),
      }),
      {},
    ),
  }),
  {},
);

const atLeastOnce = z.optional(z.number().check(z.int(), z.minimum(1)));

const dreaming = z.prefault(
  z.object({
    enabled: offByDefault,
    /** core: daily 03:00 (0.75/3/2); deep: every 12 h (0.8/3/3); rem: every 6 h (0.85/4/3). */
    preset: z._default(z.enum(["core", "deep", "rem"]), "core"),
    /** Cron expression overriding the preset's schedule. */
    cron: z.optional(nonEmpty),
    minScore: z.optional(fraction),
    minRecallCount: atLeastOnce,
    minUniqueQueries: atLeastOnce,
    timezone: z.optional(nonEmpty),
  }),
  {},
);

export const memorySection = z.prefault(
  z.object({
    enabled: z._default(z.boolean(), true),
    embedding,
    search,
    chunk: z.prefault(
      z.object({
        tokens: z._default(z.number().check(z.int(), z.minimum(32), z.maximum(4000)), 400),
        overlap: z._default(z.number().check(z.int(), z.minimum(0), z.maximum(1000)), 80),
      }),
      {},
    ),
    /** Re-index memory files when they change on disk. */
    watch: z._default(z.boolean(), true),
    /**
     * Session transcripts as searchable memory (user and assistant text only; results
     * carry `source: "session"`). Off by default, as in OpenClaw.
     */
    sessions: z.prefault(z.object({ enabled: offByDefault }), {}),
    dreaming,
  }),
  {},
);

export type MemoryConfig = z.infer<typeof memorySection>;
