/**
 * The hono app: health and the chat API (the same path as `clawbox chat`). Bodies are
 * validated and size-limited; when the server listens beyond loopback, /api/* requires
 * the configured bearer token. Errors are JSON `{error: {code, message}}`, never stacks.
 */
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { streamSSE } from "hono/streaming";
import * as z from "zod";
import { type ConsoleDeps, mountConsole } from "../console/index.ts";
import type { Logger } from "../system/index.ts";
import { type ChatBackend, textDeltaOf } from "./chat-backend.ts";

export interface AppDeps {
  backend: ChatBackend;
  version: string;
  startedAt: number;
  /** Returns "ok" or a description of what is wrong with the database. */
  dbHealth: () => string;
  /** Bearer token for /api/*; undefined = no auth (loopback only). */
  token?: string;
  logger: Logger;
  agentId: string;
  /** Channel status for /health and the webhook routes (`POST /channels/<id>/webhook`). */
  channels?: ChannelRoutes;
  /** The web console at / and /console/* (loaded on its first request); absent = no console. */
  console?: ConsoleDeps;
}

export interface ChannelRoutes {
  status(): unknown[];
  /** undefined when that channel takes no webhooks (not enabled, or still starting). */
  webhook(channel: string, request: Request): Promise<Response> | undefined;
}

const chatBody = z.object({
  message: z.string().min(1).max(100_000),
  /** Session key or short name; default the web owner's main session. */
  session: z.string().min(1).max(300).optional(),
  stream: z.boolean().optional(),
});

const MAX_BODY_BYTES = 256 * 1024;

export function sessionKeyFor(
  agentId: string,
  channel: string,
  session: string | undefined,
): string {
  if (session?.includes(":")) return session;
  return `agent:${agentId}:${channel}:direct:${session ?? "owner"}`;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    deps.logger.error("request failed", { path: c.req.path, error: error.message });
    return c.json({ error: { code: "INTERNAL", message: "internal error" } }, 500);
  });
  app.notFound((c) =>
    c.json(
      { error: { code: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` } },
      404,
    ),
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
  const webhookLimit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) =>
      c.json(
        {
          error: {
            code: "HTTP_BAD_REQUEST",
            message: `body larger than ${MAX_BODY_BYTES} bytes`,
          },
        },
        413,
      ),
  });
  const forwardWebhook = (channel: string, request: Request): Response | Promise<Response> =>
    deps.channels?.webhook(channel, request) ??
    Response.json(
      {
        error: {
          code: "NOT_FOUND",
          message: `channel ${channel} takes no webhooks (not in webhook mode, or still starting)`,
        },
      },
      { status: 404 },
    );
  app.post("/channels/:channel/webhook", webhookLimit, (c) =>
    forwardWebhook(c.req.param("channel"), c.req.raw),
  );
  // The WeCom self-built app's callback URL (GET: URL verification, POST: messages).
  app.on(["GET", "POST"], "/channels/wecom/app", webhookLimit, (c) =>
    forwardWebhook("wecom-app", c.req.raw),
  );

  if (deps.console) mountConsole(app, deps.console);

  if (deps.token) app.use("/api/*", bearerAuth({ token: deps.token }));
  app.use(
    "/api/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        c.json(
          {
            error: {
              code: "HTTP_BAD_REQUEST",
              message: `body larger than ${MAX_BODY_BYTES} bytes`,
            },
          },
          413,
        ),
    }),
  );

  app.post("/api/chat", async (c) => {
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      return c.json(
        { error: { code: "HTTP_BAD_REQUEST", message: "body is not valid JSON" } },
        400,
      );
    }
    const parsed = chatBody.safeParse(raw);
    if (!parsed.success) {
      const message = parsed.error.issues
        .map((i) => `${i.path.join(".") || "body"}: ${i.message}`)
        .join("; ");
      return c.json({ error: { code: "HTTP_BAD_REQUEST", message } }, 400);
    }
    const body = parsed.data;
    const request = {
      sessionKey: sessionKeyFor(deps.agentId, "web", body.session),
      text: body.message,
      channel: "web",
      senderId: "web:owner",
      chatType: "direct" as const,
      signal: c.req.raw.signal,
    };
    const wantsStream =
      body.stream === true || (c.req.header("accept") ?? "").includes("text/event-stream");
    if (!wantsStream) {
      const result = await deps.backend.chat(request);
      return c.json(result, result.error ? 502 : 200);
    }
    return streamSSE(c, async (stream) => {
      const pending: Promise<void>[] = [];
      const result = await deps.backend.chat({
        ...request,
        onEvent: (event) => {
          const delta = textDeltaOf(event);
          if (delta)
            pending.push(
              stream.writeSSE({ event: "delta", data: JSON.stringify({ text: delta }) }),
            );
        },
      });
      await Promise.all(pending);
      await stream.writeSSE({
        event: result.error ? "error" : "done",
        data: JSON.stringify(result),
      });
    });
  });

  return app;
}
