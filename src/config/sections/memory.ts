/**
 * Memory: the index of MEMORY.md and memory/*.md, the local ONNX embedding model,
 * hybrid search weights (SPEC §8 defaults) and the opt-in dreaming schedule.
 */
import * as z from "zod";

const embedding = z
  .object({
    /**
     * Manifest name of the model (models/manifest.json), or "none" for keyword-only.
     * Default: the int8 variant (~4x smaller in memory than fp32 on a small board).
     */
    model: z.string().min(1).default("bge-small-zh-v1.5-int8"),
    /** A model folder (model.onnx + tokenizer.json + clawbox-model.json); overrides `model`. */
    dir: z.string().min(1).optional(),
    /** onnxruntime intra-op threads. Always explicit: the default oversubscribes small boards. */
    threads: z.number().int().min(1).max(16).default(1),
    batchSize: z.number().int().min(1).max(256).default(16),
  })
  .prefault({});

const search = z
  .object({
    vectorWeight: z.number().min(0).max(1).default(0.7),
    textWeight: z.number().min(0).max(1).default(0.3),
    candidateMultiplier: z.number().int().min(1).max(20).default(4),
    minScore: z.number().min(0).max(1).default(0.35),
    maxResults: z.number().int().min(1).max(50).default(6),
    mmr: z
      .object({
        enabled: z.boolean().default(false),
        /** 1 = relevance only, 0 = diversity only. */
        lambda: z.number().min(0).max(1).default(0.7),
      })
      .prefault({}),
    temporalDecay: z
      .object({
        enabled: z.boolean().default(false),
        /** Dated notes (memory/YYYY-MM-DD.md) lose half their score after this many days. */
        halfLifeDays: z.number().min(1).default(30),
      })
      .prefault({}),
  })
  .prefault({});

const dreaming = z
  .object({
    enabled: z.boolean().default(false),
    /** core: daily 03:00 (0.75/3/2); deep: every 12 h (0.8/3/3); rem: every 6 h (0.85/4/3). */
    preset: z.enum(["core", "deep", "rem"]).default("core"),
    /** Cron expression overriding the preset's schedule. */
    cron: z.string().min(1).optional(),
    minScore: z.number().min(0).max(1).optional(),
    minRecallCount: z.number().int().min(1).optional(),
    minUniqueQueries: z.number().int().min(1).optional(),
    timezone: z.string().min(1).optional(),
  })
  .prefault({});

export const memorySection = z
  .object({
    enabled: z.boolean().default(true),
    embedding,
    search,
    chunk: z
      .object({
        tokens: z.number().int().min(32).max(4000).default(400),
        overlap: z.number().int().min(0).max(1000).default(80),
      })
      .prefault({}),
    /** Re-index memory files when they change on disk. */
    watch: z.boolean().default(true),
    /**
     * Session transcripts as searchable memory (user and assistant text only; results
     * carry `source: "session"`). Off by default, as in OpenClaw.
     */
    sessions: z.object({ enabled: z.boolean().default(false) }).prefault({}),
    dreaming,
  })
  .prefault({});

export type MemoryConfig = z.infer<typeof memorySection>;
