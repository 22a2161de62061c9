/** HTTP server (web console, REST API, webhooks). Loopback by default; LAN needs a token. */
import * as z from "zod";

export const serverSection = z
  .object({
    host: z.string().min(1).default("127.0.0.1"),
    port: z.number().int().min(1).max(65535).default(18790),
    /** Bearer token required for /api/* when bound to a non-loopback address. */
    token: z.string().min(16).optional(),
    /**
     * Host names (besides the bound address, localhost and loopback addresses) that
     * requests may carry in Host and Origin, e.g. "clawbox.local". Anything else gets
     * 403, which stops DNS rebinding and cross-site requests from web pages.
     */
    allowedHosts: z.array(z.string().min(1)).default([]),
    /**
     * On SIGTERM/SIGINT, running replies get this long to finish before they are
     * aborted (and stored as far as they got). Keep it below the unit's TimeoutStopSec (30 s).
     */
    drainMs: z.number().int().min(0).max(600_000).default(20_000),
  })
  .default({ host: "127.0.0.1", port: 18790, allowedHosts: [], drainMs: 20_000 });

export type ServerConfig = z.infer<typeof serverSection>;
