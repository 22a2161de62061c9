/**
 * The console's hono app, built on the first console request: the page shell and login
 * form, the embedded client script and styles, and the JSON/SSE API under /console/api
 * that the client calls. Auth: see console-auth.ts.
 */
import { Hono } from "hono";
import { getConnInfo } from "hono/bun";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { registerChatRoutes } from "./api-chat.ts";
import { registerContextRoutes } from "./api-context.ts";
import { registerMemoryRoutes } from "./api-memory.ts";
import { registerModelRoutes } from "./api-models.ts";
import { registerSessionRoutes } from "./api-sessions.ts";
import { registerStatusRoutes } from "./api-status.ts";
import { consoleAssets } from "./console-assets.ts";
import { ConsoleAuth, CSRF_HEADER, SESSION_COOKIE } from "./console-auth.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import { apiError } from "./json-body.ts";
import { appShell, loginPage } from "./page-shell.ts";

export type ConsoleEnv = { Variables: { csrf: string } };

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function clientAddress(c: Parameters<typeof getConnInfo>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

export function createConsoleApp(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const auth = new ConsoleAuth(deps.token);
  const app = new Hono<ConsoleEnv>();
  const assets = consoleAssets();

  // Host (DNS rebinding) and Origin (cross-site) are checked for every route by the
  // server's hostOriginGuard before a request gets here.
  app.use("*", async (c, next) => {
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "same-origin");
    c.header("X-Frame-Options", "DENY");
    await next();
  });

  app.get("/console/assets/:name", (c) => {
    const asset = assets.get(c.req.param("name"));
    if (!asset) return c.text("not found", 404);
    const gzip = (c.req.header("accept-encoding") ?? "").includes("gzip");
    c.header("Content-Type", asset.type);
    c.header("Cache-Control", "public, max-age=86400, immutable");
    c.header("Vary", "Accept-Encoding");
    if (!gzip) return c.body(asset.text);
    c.header("Content-Encoding", "gzip");
    return c.body(asset.gzip as Uint8Array<ArrayBuffer>);
  });

  app.get("/", (c) => {
    const csrf = auth.csrfFor(getCookie(c, SESSION_COOKIE));
    c.header("Cache-Control", "no-store");
    c.header(
      "Content-Security-Policy",
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'",
    );
    if (!csrf) return c.html(loginPage({}));
    return c.html(appShell({ csrf, version: deps.version, open: auth.open }));
  });
  app.get("/console", (c) => c.redirect("/", 302));

  app.post("/console/login", async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.token === "string" ? form.token : "";
    const outcome = auth.login(token, clientAddress(c));
    if (outcome.ok) {
      setCookie(c, SESSION_COOKIE, outcome.sessionId, {
        path: "/",
        httpOnly: true,
        sameSite: "Strict",
        maxAge: outcome.maxAgeSeconds,
      });
      return c.redirect("/", 303);
    }
    if (outcome.limited) {
      c.header("Retry-After", String(outcome.retryAfterSeconds));
      return c.html(
        loginPage({
          error: `Too many failed logins. Try again in ${outcome.retryAfterSeconds} s.`,
        }),
        429,
      );
    }
    return c.html(loginPage({ error: "Wrong token." }), 401);
  });

  app.use("/console/api/*", async (c, next) => {
    const csrf = auth.csrfFor(getCookie(c, SESSION_COOKIE));
    if (!csrf) return apiError(c, 401, "UNAUTHORIZED", "log in first");
    if (STATE_CHANGING.has(c.req.method)) {
      if (!auth.csrfMatches(csrf, c.req.header(CSRF_HEADER))) {
        return apiError(c, 403, "FORBIDDEN", `missing or wrong ${CSRF_HEADER} header`);
      }
      if (!(c.req.header("content-type") ?? "").startsWith("application/json")) {
        return apiError(c, 415, "HTTP_BAD_REQUEST", "send the body as application/json");
      }
    }
    c.set("csrf", csrf);
    c.header("Cache-Control", "no-store");
    await next();
  });

  app.post("/console/api/logout", (c) => {
    auth.logout(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.json({ ok: true });
  });

  registerChatRoutes(app, deps);
  registerSessionRoutes(app, deps);
  registerContextRoutes(app, deps);
  registerMemoryRoutes(app, deps);
  registerModelRoutes(app, deps);
  registerStatusRoutes(app, deps);

  app.all("/console/api/*", (c) =>
    apiError(c, 404, "NOT_FOUND", `no route ${c.req.method} ${c.req.path}`),
  );
  app.onError((error, c) => {
    deps.logger.error("console request failed", { path: c.req.path, error: error.message });
    return apiError(c, 500, "INTERNAL", "internal error");
  });
  return app;
}
