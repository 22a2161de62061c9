/**
 * The console's hono app, built on the first console request: the page shell and login
 * form, the embedded client script and styles, and the JSON/SSE API under /console/api
 * that the client calls. Auth: see console-auth.ts. No answer before the API's login
 * check carries anything of the box: the app shell and the assets are the same for
 * everyone, and a login's token is handed over only in the body of the login's answer,
 * for the page's own script to keep. Every body is capped before it is read: the login
 * form at 4 KB after the rate limit, the API after the login check.
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { registerChannelRoutes } from "./api-channels.ts";
import { MAX_CHAT_BODY_BYTES, registerChatRoutes } from "./api-chat.ts";
import { registerContextRoutes } from "./api-context.ts";
import { registerLogRoutes } from "./api-logs.ts";
import { registerMemoryRoutes } from "./api-memory.ts";
import { registerModelRoutes } from "./api-models.ts";
import { registerOwnerRoutes } from "./api-owners.ts";
import { registerReminderRoutes } from "./api-reminders.ts";
import { registerSessionRoutes } from "./api-sessions.ts";
import { registerStatusRoutes } from "./api-status.ts";
import { registerWorkspaceRoutes } from "./api-workspace.ts";
import { clientKey } from "./client-address.ts";
import { assetUrl, type ConsoleAsset, consoleAssets } from "./console-assets.ts";
import { ConsoleAuth, type LoginOutcome, SESSION_HEADER } from "./console-auth.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { apiError } from "./json-body.ts";
import { appShell, loggedInPage, loginPage } from "./page-shell.ts";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Every console API body but a chat turn's (which may carry images). */
const MAX_API_BODY_BYTES = 256 * 1024;

/** Typed login secrets are short; a form with one field never needs more. */
const LOGIN_BODY_BYTES = 4 * 1024;

const tooLarge = (c: Context) => apiError(c, 413, "HTTP_BODY_TOO_LARGE", "request body too large");

export function createConsoleApp(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const auth = new ConsoleAuth({ secrets: deps.login.secrets, tickets: deps.login.tickets });
  const app = new Hono<ConsoleEnv>();
  const assets = consoleAssets();
  const urls = {
    script: assetUrl("console.js", assets.get("console.js") as ConsoleAsset),
    login: assetUrl("login.js", assets.get("login.js") as ConsoleAsset),
    styles: assetUrl("console.css", assets.get("console.css") as ConsoleAsset),
  };

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
    // Only the URL naming this exact content may be cached for good; any other is
    // revalidated, so a browser never keeps an old script after an update.
    c.header(
      "Cache-Control",
      c.req.query("v") === asset.hash ? "public, max-age=31536000, immutable" : "no-cache",
    );
    c.header("ETag", `"${asset.hash}"`);
    if (c.req.header("if-none-match") === `"${asset.hash}"`) return c.body(null, 304);
    c.header("Vary", "Accept-Encoding");
    if (!gzip) return c.body(asset.text);
    c.header("Content-Encoding", "gzip");
    return c.body(asset.gzip as Uint8Array<ArrayBuffer>);
  });

  const htmlHeaders = (c: Context) => {
    c.header("Cache-Control", "no-store");
    c.header(
      "Content-Security-Policy",
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'",
    );
  };

  // The shell is the same for everyone: its script goes to the login page when this
  // browser holds no session for this origin.
  app.get("/", (c) => {
    htmlHeaders(c);
    return c.html(appShell({ assets: urls }));
  });
  app.get("/console", (c) => c.redirect("/", 302));

  /**
   * The answer to a login attempt (typed secret or one-time link). A success is a page
   * whose script keeps the token in this origin's storage and opens the console; the
   * token is in that page's body only (no cookie, no URL), and the page is never cached.
   */
  const answerLogin = (c: Context, outcome: LoginOutcome, wrong: string) => {
    htmlHeaders(c);
    if (outcome.ok)
      return c.html(
        loggedInPage({ token: outcome.token, expiresAt: outcome.expiresAt, assets: urls }),
      );
    if (outcome.limited) return lockedOut(c, outcome.retryAfterSeconds);
    return c.html(loginPage({ error: wrong, assets: urls }), 401);
  };
  const lockedOut = (c: Context, seconds: number) => {
    htmlHeaders(c);
    c.header("Retry-After", String(seconds));
    return c.html(
      loginPage({ error: `Too many failed logins. Try again in ${seconds} s.`, assets: urls }),
      429,
    );
  };

  // A one-time link from `clawbox run` or `clawbox console url`.
  app.get("/console/login", (c) => {
    const ticket = c.req.query("ticket");
    if (!ticket) {
      htmlHeaders(c);
      return c.html(loginPage({ assets: urls }));
    }
    return answerLogin(
      c,
      auth.redeem(ticket, clientKey(c)),
      "This login link is not valid (used, expired, or from before a restart). Run clawbox console url on the box for a new one.",
    );
  });

  // The rate limit comes before the body is read, and the body is capped before it is parsed.
  app.post(
    "/console/login",
    async (c, next) => {
      const wait = auth.retryAfterSeconds(clientKey(c));
      return wait > 0 ? lockedOut(c, wait) : next();
    },
    bodyLimit({ maxSize: LOGIN_BODY_BYTES, onError: tooLarge }),
    async (c) => {
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      // `token` is the field's earlier name (scripts that log in with server.token).
      const typed = form.secret ?? form.token;
      const secret = typeof typed === "string" ? typed.trim() : "";
      return answerLogin(c, auth.login(secret, clientKey(c)), "Wrong secret.");
    },
  );

  // Every API request proves its session with the header (never a cookie): a page of
  // another origin cannot send it, so no CSRF token is needed on top.
  app.use("/console/api/*", async (c, next) => {
    const expiresAt = auth.expiresAt(c.req.header(SESSION_HEADER));
    if (expiresAt === undefined) return apiError(c, 401, "UNAUTHORIZED", "log in first");
    if (
      STATE_CHANGING.has(c.req.method) &&
      !(c.req.header("content-type") ?? "").startsWith("application/json")
    ) {
      return apiError(c, 415, "HTTP_BAD_REQUEST", "send the body as application/json");
    }
    c.set("expiresAt", expiresAt);
    c.header("Cache-Control", "no-store");
    await next();
  });
  // Only after the login check: a logged-in owner's chat may carry images.
  app.use("/console/api/*", (c, next) =>
    bodyLimit({
      maxSize: c.req.path === "/console/api/chat" ? MAX_CHAT_BODY_BYTES : MAX_API_BODY_BYTES,
      onError: tooLarge,
    })(c, next),
  );

  // What the shell shows once it knows the session is good: the version, and until when.
  app.get("/console/api/session", (c) =>
    c.json({ version: deps.version, expiresAt: c.get("expiresAt") }),
  );

  app.post("/console/api/logout", (c) => {
    auth.logout(c.req.header(SESSION_HEADER));
    return c.json({ ok: true });
  });

  registerChatRoutes(app, deps);
  registerSessionRoutes(app, deps);
  registerContextRoutes(app, deps);
  registerMemoryRoutes(app, deps);
  registerModelRoutes(app, deps);
  registerStatusRoutes(app, deps);
  registerChannelRoutes(app, deps);
  registerOwnerRoutes(app, deps);
  registerWorkspaceRoutes(app, deps);
  registerReminderRoutes(app, deps);
  registerLogRoutes(app, deps);

  app.all("/console/api/*", (c) =>
    apiError(c, 404, "NOT_FOUND", `no route ${c.req.method} ${c.req.path}`),
  );
  app.onError((error, c) => {
    deps.logger.error("console request failed", { path: c.req.path, error: error.message });
    return apiError(c, 500, "INTERNAL", "internal error");
  });
  return app;
}
