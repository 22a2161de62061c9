/** Context management: bootstrap limits, budget, compaction, pruning, skills, engine choice. */
import { z } from "../../schema/index.ts";

const compactionSection = z.prefault(
  z.object({
    /** safeguard: only near the window; aggressive: keep history short; off: manual only. */
    mode: z._default(z.enum(["safeguard", "aggressive", "off"]), "safeguard"),
    /** aggressive mode compacts when history exceeds this fraction of the window. */
    aggressiveRatio: z._default(z.number().check(z.minimum(0.1), z.maximum(0.9)), 0.5),
    /** Recent history kept whole by a compaction (capped at 25% of small windows). */
    keepRecentTokens: z._default(z.number().check(z.int(), z.minimum(0)), 20000),
    /** Run the pre-compaction memory flush turn (once per compaction cycle). */
    memoryFlush: z._default(z.boolean(), true),
  }),
  {},
);

const pruningSection = z.prefault(
  z.object({
    enabled: z._default(z.boolean(), true),
    /** Prompt-cache lifetime; old tool results are pruned only after it expired. */
    ttlMs: z._default(z.number().check(z.int(), z.minimum(0)), 300_000),
    keepLastAssistants: z._default(z.number().check(z.int(), z.minimum(0)), 3),
    softTrimMinChars: z._default(z.number().check(z.int(), z.minimum(100)), 4000),
    softTrimHeadChars: z._default(z.number().check(z.int(), z.minimum(0)), 1500),
    softTrimTailChars: z._default(z.number().check(z.int(), z.minimum(0)), 1500),
  }),
  {},
);

const skillsSection = z.prefault(
  z.object({
    /** Extra skill folders (lowest precedence). */
    extraDirs: z._default(z.array(z.string().check(z.minLength(1))), []),
    /** Personal agent skills; default ~/.agents/skills. */
    personalDir: z.optional(z.string().check(z.minLength(1))),
    /** Longest skills list (entries) offered to the model. */
    maxListed: z._default(z.number().check(z.int(), z.minimum(0)), 50),
  }),
  {},
);

export const contextSection = z.prefault(
  z.object({
    engine: z._default(z.string().check(z.minLength(1)), "default"),
    bootstrapMaxChars: z._default(z.number().check(z.int(), z.minimum(100)), 20000),
    bootstrapTotalMaxChars: z._default(z.number().check(z.int(), z.minimum(100)), 60000),
    /** Tokens kept free for the reply (capped at 25% of small windows). */
    reserveTokens: z._default(z.number().check(z.int(), z.minimum(256)), 16384),
    compaction: compactionSection,
    pruning: pruningSection,
    skills: skillsSection,
  }),
  {},
);

export type ContextConfig = z.infer<typeof contextSection>;
