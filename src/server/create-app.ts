/**
 * The hono app: health, the chat API (the same path as `clawbox chat`), channel
 * webhooks and the OpenAI-compatible API under /v1 (off by default). Guards, each in its own file so the web console can compose with them:
 * Host/Origin same-host check (every route but webhooks, which carry a platform
 * signature), no proxied requests without a token (the same routes), the owner token on
 * /api/* (wrong ones limited per client), JSON-only bodies, a body size limit. Errors are
 * JSON `{error: {code, message}}` (OpenAI's `{error: {message, type, code}}` under /v1),
 * never stacks or plain text.
 */
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type ConsoleDeps, mountConsole } from "../console/index.ts";
import type { SessionResolver } from "../sessions/index.ts";
import type { Logger } from "../system/index.ts";
import { createBearerFailures } from "./bearer-failures.ts";
import { limitBody } from "./body-size-limit.ts";
import type { ChatBackend } from "./chat-backend.ts";
import { mountChatRoute } from "./chat-route.ts";
import { hostOriginGuard } from "./host-origin-guard.ts";
import { requireJsonBody } from "./json-content-type.ts";
import { jsonError } from "./json-error.ts";
import { capsOwnBody, mountOpenAiApi, openAiErrorShape } from "./openai-api/mount-openai-api.ts";
import { ownerToken } from "./owner-token.ts";
import { refuseProxiedWithoutToken } from "./proxy-guard.ts";

export interface AppDeps {
  backend: ChatBackend;
  version: string;
  startedAt: number;
  /** Returns "ok" or a description of what is wrong with the database. */
  dbHealth: () => string;
  /** Bearer token for /api/*; undefined = no auth (loopback only). */
  token?: string;
  logger: Logger;
  /** Which session a request names and who it belongs to (built from `config.agent`). */
  sessions: SessionResolver;
  /** The address the server listens on; its names pass the Host/Origin check. */
  host?: string;
  /** `server.allowedHosts`: more names that pass the Host/Origin check. */
  allowedHosts?: readonly string[];
  /** SSE keep-alive comment interval while a streamed turn runs (default 15 s). */
  keepAliveMs?: number;
  /** Channel status for /health and the webhook routes (`POST /channels/<id>/webhook`). */
  channels?: ChannelRoutes;
  /** The web console at / and /console/* (loaded on its first request); absent = no console. */
  console?: ConsoleDeps;
  /** `server.openaiApi`: the OpenAI-compatible API under /v1 (absent = off, /v1/* is 404). */
  openaiApi?: { enabled: boolean };
}

export interface ChannelRoutes {
  status(): unknown[];
  /** undefined when that channel takes no webhooks (not enabled, or still starting). */
  webhook(channel: string, request: Request): Promise<Response> | undefined;
}

/** Platform callbacks: reached through a reverse proxy (any Host), verified by signature. */
const WEBHOOK_PATH = /^\/channels\//;
/** The console's routes (console/mount-console.ts), which cap bodies themselves. */
const CONSOLE_PATH = /^\/(console(\/|$)|$)/;

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const openaiApi = { enabled: deps.openaiApi?.enabled === true };
  // One count of wrong bearer tokens for /api and /v1 together.
  const bearerFailures = createBearerFailures(deps.logger.child("auth"));
  // Before every guard: OpenAI clients get their refusals in OpenAI's shape.
  app.use("/v1/*", openAiErrorShape);

  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    deps.logger.error("request failed", { path: c.req.path, error: error.message });
    return jsonError(c, 500, "INTERNAL", "internal error");
  });
  app.notFound((c) =>
    jsonError(c, 404, "HTTP_NOT_FOUND", `no route ${c.req.method} ${c.req.path}`),
  );
  const sameHost = hostOriginGuard({
    ...(deps.host ? { boundHost: deps.host } : {}),
    allowedHosts: deps.allowedHosts ?? [],
  });
  app.use("*", async (c, next) => (WEBHOOK_PATH.test(c.req.path) ? next() : sameHost(c, next)));
  // Through a reverse proxy only the webhooks, unless a token guards the rest.
  const proxied = refuseProxiedWithoutToken(deps.token);
  app.use("*", async (c, next) => (WEBHOOK_PATH.test(c.req.path) ? next() : proxied(c, next)));
  // Every body is capped before anything reads it. The console caps its own routes (the
  // login form after its rate limit, the API after its login check), so an
  // unauthenticated client can never make it buffer a chat turn's larger allowance. The
  // OpenAI chat route does the same after its token check.
  const defaultLimit = limitBody();
  app.use("*", (c, next) =>
    CONSOLE_PATH.test(c.req.path) || capsOwnBody(openaiApi, c.req.path)
      ? next()
      : defaultLimit(c, next),
  );

  app.get("/health", (c) => {
    const db = deps.dbHealth();
    return c.json({
      status: db === "ok" ? "ok" : "degraded",
      version: deps.version,
      uptimeMs: Date.now() - deps.startedAt,
      db: { ok: db === "ok", detail: db },
      models: deps.backend.modelState(),
      channels: deps.channels?.status() ?? [],
    });
  });

  // Platform webhooks: no bearer token (they come through the owner's reverse proxy);
  // each channel authenticates its platform's signature before doing anything.
  const forwardWebhook = (c: Context, channel: string): Response | Promise<Response> =>
    deps.channels?.webhook(channel, c.req.raw) ??
    jsonError(
      c,
      404,
      "HTTP_NOT_FOUND",
      `channel ${channel} takes no webhooks (not in webhook mode, or still starting)`,
    );
  app.post("/channels/:channel/webhook", (c) => forwardWebhook(c, c.req.param("channel")));
  // The WeCom self-built app's callback URL (GET: URL verification, POST: messages).
  app.on(["GET", "POST"], "/channels/wecom/app", (c) => forwardWebhook(c, "wecom-app"));

  if (deps.console) mountConsole(app, deps.console);

  app.use("/api/*", ownerToken(deps.token, { failures: bearerFailures }), requireJsonBody());
  mountChatRoute(app, {
    backend: deps.backend,
    sessions: deps.sessions,
    keepAliveMs: deps.keepAliveMs ?? 15_000,
  });
  mountOpenAiApi(app, {
    ...openaiApi,
    token: deps.token,
    failures: bearerFailures,
    backend: deps.backend,
    sessions: deps.sessions,
    keepAliveMs: deps.keepAliveMs ?? 15_000,
    startedAt: deps.startedAt,
  });

  return app;
}
