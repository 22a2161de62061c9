/**
 * A chat turn on a Pi can take minutes: its request must outlive the server's idle
 * timeout (Bun aborts a request after `idleTimeout` seconds without traffic otherwise).
 */
import type { Context } from "hono";

/** Lets this request run past the server's idle timeout (Bun: `server.timeout(req, 0)`). */
export function noIdleTimeout(c: Context): void {
  const server = c.env as { timeout?: (request: Request, seconds: number) => void } | undefined;
  server?.timeout?.(c.req.raw, 0);
}
