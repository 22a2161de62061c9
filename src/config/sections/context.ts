/** Context management: bootstrap limits, budget, compaction, pruning, skills, engine choice. */
import * as z from "zod";

const compactionSection = z
  .object({
    /** safeguard: only near the window; aggressive: keep history short; off: manual only. */
    mode: z.enum(["safeguard", "aggressive", "off"]).default("safeguard"),
    /** aggressive mode compacts when history exceeds this fraction of the window. */
    aggressiveRatio: z.number().min(0.1).max(0.9).default(0.5),
    /** Recent history kept whole by a compaction (capped at 25% of small windows). */
    keepRecentTokens: z.number().int().min(0).default(20000),
    /** Run the pre-compaction memory flush turn (once per compaction cycle). */
    memoryFlush: z.boolean().default(true),
  })
  .prefault({});

const pruningSection = z
  .object({
    enabled: z.boolean().default(true),
    /** Prompt-cache lifetime; old tool results are pruned only after it expired. */
    ttlMs: z.number().int().min(0).default(300_000),
    keepLastAssistants: z.number().int().min(0).default(3),
    softTrimMinChars: z.number().int().min(100).default(4000),
    softTrimHeadChars: z.number().int().min(0).default(1500),
    softTrimTailChars: z.number().int().min(0).default(1500),
  })
  .prefault({});

const skillsSection = z
  .object({
    /** Extra skill folders (lowest precedence). */
    extraDirs: z.array(z.string().min(1)).default([]),
    /** Personal agent skills; default ~/.agents/skills. */
    personalDir: z.string().min(1).optional(),
    /** Longest skills list (entries) offered to the model. */
    maxListed: z.number().int().min(0).default(50),
  })
  .prefault({});

export const contextSection = z
  .object({
    engine: z.string().min(1).default("default"),
    bootstrapMaxChars: z.number().int().min(100).default(20000),
    bootstrapTotalMaxChars: z.number().int().min(100).default(60000),
    /** Tokens kept free for the reply (capped at 25% of small windows). */
    reserveTokens: z.number().int().min(256).default(16384),
    compaction: compactionSection,
    pruning: pruningSection,
    skills: skillsSection,
  })
  .prefault({});

export type ContextConfig = z.infer<typeof contextSection>;
