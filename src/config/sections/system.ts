/** Process-level settings: logging and systemd integration. */
import * as z from "zod";

export const logSection = z
  .object({
    level: z.enum(["debug", "info", "warn", "error"]).default("info"),
  })
  .default({ level: "info" });

export type LogConfig = z.infer<typeof logSection>;
