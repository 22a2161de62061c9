/** Memory index and search. */
import * as z from "zod";

export const memorySection = z
  .object({
    enabled: z.boolean().default(true),
  })
  .default({ enabled: true });

export type MemoryConfig = z.infer<typeof memorySection>;
