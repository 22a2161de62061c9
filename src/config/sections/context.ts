/** Context management: bootstrap limits, compaction, pruning, engine choice. */
import * as z from "zod";

export const contextSection = z
  .object({
    engine: z.string().min(1).default("default"),
    bootstrapMaxChars: z.number().int().min(100).default(20000),
    bootstrapTotalMaxChars: z.number().int().min(100).default(60000),
  })
  .default({ engine: "default", bootstrapMaxChars: 20000, bootstrapTotalMaxChars: 60000 });

export type ContextConfig = z.infer<typeof contextSection>;
