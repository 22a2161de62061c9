/** HTTP server (web console, REST API, webhooks). Loopback by default; LAN needs a token. */
import * as z from "zod";

export const serverSection = z
  .object({
    host: z.string().min(1).default("127.0.0.1"),
    port: z.number().int().min(1).max(65535).default(18790),
    /** Bearer token required for /api/* when bound to a non-loopback address. */
    token: z.string().min(16).optional(),
  })
  .default({ host: "127.0.0.1", port: 18790 });

export type ServerConfig = z.infer<typeof serverSection>;
