/**
 * Mounts the OpenAI-compatible API under `/v1` (`server.openaiApi.enabled`, off by
 * default). Guarantees: every `/v1/*` answer, refusals included, is in OpenAI's error
 * shape; when the API is off every `/v1/*` path is 404; when it is on, every request
 * needs `server.token` (401 without it or with a wrong one, and 401 for all when no token
 * is configured) before anything else runs or any body is read; the chat route takes
 * JSON only, with a larger body cap than the rest of the API (a picture or two and the
 * history OpenAI clients resend), applied only after the token check. The routes' code
 * loads on the first request that gets that far, so `clawbox run` starts without it.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { SessionResolver } from "../../sessions/index.ts";
import type { BearerFailures } from "../bearer-failures.ts";
import { limitBody } from "../body-size-limit.ts";
import type { ChatBackend } from "../chat-backend.ts";
import { requireJsonBody } from "../json-content-type.ts";
import { jsonError } from "../json-error.ts";
import { ownerToken } from "../owner-token.ts";
import { MAX_CHAT_COMPLETION_BYTES } from "./chat-completion-limits.ts";
import { openAiErrorBody } from "./openai-error-body.ts";
import type { OpenAiRoutes } from "./openai-routes.ts";

export const OPENAI_CHAT_PATH = "/v1/chat/completions";

export interface OpenAiApiDeps {
  /** `server.openaiApi.enabled`. */
  enabled: boolean;
  /** `server.token`: required for every request. */
  token: string | undefined;
  /** Wrong tokens counted with /api's (bearer-failures.ts). */
  failures?: BearerFailures;
  backend: ChatBackend;
  sessions: SessionResolver;
  keepAliveMs: number;
  startedAt: number;
}

/** First on `/v1/*`: every error answer from here on, guards' included, is OpenAI-shaped. */
export const openAiErrorShape: MiddlewareHandler = async (c, next) => {
  c.set("clawboxErrorBody", openAiErrorBody);
  await next();
};

/** True when `path` is capped by the OpenAI API itself (after its token check). */
export function capsOwnBody(deps: Pick<OpenAiApiDeps, "enabled">, path: string): boolean {
  return deps.enabled && path === OPENAI_CHAT_PATH;
}

export function mountOpenAiApi(app: Hono, deps: OpenAiApiDeps): void {
  if (!deps.enabled) {
    app.all("/v1/*", (c) =>
      jsonError(
        c,
        404,
        "HTTP_NOT_FOUND",
        `no route ${c.req.method} ${c.req.path}: the OpenAI-compatible API is off (server.openaiApi.enabled)`,
      ),
    );
    return;
  }
  let loaded: Promise<OpenAiRoutes> | undefined;
  const routes = () => {
    loaded ??= import("./openai-routes.ts").then((m) => m.createOpenAiRoutes(deps));
    return loaded;
  };
  app.use("/v1/*", ownerToken(deps.token, { required: true, failures: deps.failures }));
  app.use(OPENAI_CHAT_PATH, requireJsonBody(), limitBody(MAX_CHAT_COMPLETION_BYTES));
  app.post(OPENAI_CHAT_PATH, async (c) => (await routes()).chatCompletions(c));
  app.get("/v1/models", async (c) => (await routes()).models(c));
  app.get("/v1/models/:model", async (c) => (await routes()).model(c));
  app.all(OPENAI_CHAT_PATH, (c: Context) =>
    jsonError(c, 405, "HTTP_METHOD_NOT_ALLOWED", `${c.req.method} ${OPENAI_CHAT_PATH}: use POST`, {
      Allow: "POST",
    }),
  );
  app.all("/v1/*", (c) =>
    jsonError(c, 404, "HTTP_NOT_FOUND", `no route ${c.req.method} ${c.req.path}`),
  );
}
