/** Process-level settings: logging and systemd integration. */
import { z } from "../../schema/index.ts";

export const logSection = z._default(
  z.object({
    level: z._default(z.enum(["debug", "info", "warn", "error"]), "info"),
  }),
  { level: "info" },
);

export type LogConfig = z.infer<typeof logSection>;
