/** The server's hono app on a real Bun server on 127.0.0.1, with test defaults for what a test does not set. */
import { type AppDeps, createApp } from "../../src/server/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";

export function serveApp(
  deps: Partial<AppDeps> & Pick<AppDeps, "backend">,
  /** Bun's idle timeout in seconds (default Bun's own). */
  idleTimeout?: number,
) {
  const app = createApp({
    version: "0",
    startedAt: Date.now(),
    dbHealth: () => "ok",
    logger: silentLogger,
    sessions: createSessionResolver({ id: "main", directSessionMode: "per-peer", owners: ["cli"] }),
    host: "127.0.0.1",
    ...deps,
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: app.fetch,
    ...(idleTimeout ? { idleTimeout } : {}),
  });
  return { server, base: `http://127.0.0.1:${server.port}` };
}
