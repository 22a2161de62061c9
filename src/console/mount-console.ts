/**
 * Mounts the web console on the hono app: `/` and `/console/*`. Only this file is loaded
 * at startup; the console itself (routes, pages, the embedded client script and styles)
 * is imported on the first console request, so `clawbox run` does not parse it before
 * READY.
 */
import type { Context, Hono } from "hono";
import type { ConsoleDeps } from "./console-deps.ts";

export function mountConsole(app: Hono, deps: ConsoleDeps): void {
  let loaded: Promise<{ fetch: Hono["fetch"] }> | undefined;
  const load = () => {
    loaded ??= import("./console-app.ts").then((m) => m.createConsoleApp(deps));
    return loaded;
  };
  const handle = async (c: Context) => (await load()).fetch(c.req.raw, c.env);
  app.all("/", handle);
  app.all("/console", handle);
  app.all("/console/*", handle);
}
