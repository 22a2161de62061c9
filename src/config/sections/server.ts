/** HTTP server (web console, REST API, webhooks). Loopback by default; LAN needs a token. */
import { z } from "../../schema/index.ts";

export const serverSection = z._default(
  z.object({
    host: z._default(z.string().check(z.minLength(1)), "127.0.0.1"),
    port: z._default(z.int().check(z.minimum(1), z.maximum(65535)), 18790),
    /** Bearer token required for /api/* when bound to a non-loopback address. */
    token: z.optional(z.string().check(z.minLength(16))),
    /**
     * Host names (besides the bound address, localhost and loopback addresses) that
     * requests may carry in Host and Origin, e.g. "clawbox.local". Anything else gets
     * 403, which stops DNS rebinding and cross-site requests from web pages.
     */
    allowedHosts: z._default(z.array(z.string().check(z.minLength(1))), []),
    /**
     * On SIGTERM/SIGINT, running replies get this long to finish before they are
     * aborted (and stored as far as they got). Keep it below the unit's TimeoutStopSec (30 s).
     */
    drainMs: z._default(z.int().check(z.minimum(0), z.maximum(600_000)), 20_000),
    /**
     * The OpenAI-compatible API (`/v1/chat/completions`, `/v1/models`, docs/HTTP-API.md):
     * off by default; when on, every request needs `server.token` and is the owner's.
     */
    openaiApi: z._default(z.object({ enabled: z._default(z.boolean(), false) }), {
      enabled: false,
    }),
  }),
  {
    host: "127.0.0.1",
    port: 18790,
    allowedHosts: [],
    drainMs: 20_000,
    openaiApi: { enabled: false },
  },
);

export type ServerConfig = z.infer<typeof serverSection>;
