/**
 * The OpenAI-compatible routes, loaded on the first `/v1/*` request that passed the
 * token check (mount-openai-api.ts). `POST /v1/chat/completions` runs one owner turn of
 * the box's agent in a session of the `openai-api` channel — the box's memory, tool
 * policy and transcript, tools run on the box and are never handed to the client — and
 * answers as OpenAI does, whole or streamed. `GET /v1/models` lists the agent, `clawbox`,
 * and each configured local model by its provider id: for those ids the route is a plain
 * model server (plain-model-routes.ts), which never reaches the agent. A failed turn is stored like any other, so its answer tells OpenAI's SDKs
 * not to retry it (`x-should-retry: false`): a retry would run the turn again.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { textDeltaOf } from "../../agent/index.ts";
import { isClawboxError } from "../../errors/index.ts";
import { type SessionResolver, WEB_TOKEN_SENDER } from "../../sessions/index.ts";
import type { ChatBackend, ChatBackendRequest, ChatBackendResult } from "../chat-backend.ts";
import { jsonError } from "../json-error.ts";
import { noIdleTimeout } from "../no-idle-timeout.ts";
import {
  type ChatCompletionTurn,
  CLAWBOX_MODEL,
  readChatCompletion,
  SESSION_HEADER,
} from "./chat-completion-request.ts";
import {
  completion,
  completionChunk,
  completionIds,
  createUsageTally,
  usageChunk,
} from "./chat-completion-response.ts";
import { openAiError } from "./openai-error-body.ts";
import { createPlainModelRoutes } from "./plain-model-routes.ts";

export interface OpenAiRouteDeps {
  backend: ChatBackend;
  sessions: SessionResolver;
  /** Milliseconds between SSE keep-alive comments. */
  keepAliveMs: number;
  /** When the server started (the model's `created`). */
  startedAt: number;
}

/** The channel whose namespace the sessions of this API live in. */
const CHANNEL = "openai-api";
const NO_RETRY = { "x-should-retry": "false" };

export function createOpenAiRoutes(deps: OpenAiRouteDeps) {
  const model = {
    id: CLAWBOX_MODEL,
    object: "model",
    created: Math.floor(deps.startedAt / 1000),
    owned_by: "clawbox",
  };

  const plain = createPlainModelRoutes(deps);
  const plainModel = (id: string) => ({ ...model, id, owned_by: "clawbox-local" });

  const unknownModel = (c: Context, message: string) =>
    c.json({ error: openAiError(message, "invalid_request_error", "model_not_found") }, 404);

  /** The session key a turn names (built by the sessions area), or the 400 saying why not. */
  const sessionKeyOf = (c: Context, turn: ChatCompletionTurn): string | Response => {
    try {
      return turn.session === undefined
        ? deps.sessions.defaultSession("openai-api", true)
        : deps.sessions.resolve(turn.session, "openai-api");
    } catch (error) {
      if (!isClawboxError(error, "SESSION_KEY_INVALID")) throw error;
      return jsonError(c, 400, "HTTP_BAD_REQUEST", error.message);
    }
  };

  const failure = (result: ChatBackendResult) =>
    openAiError(
      result.error?.message ?? "the turn failed",
      "server_error",
      result.error?.code ?? null,
    );

  const answerWhole = async (c: Context, request: ChatBackendRequest, model: string) => {
    const tally = createUsageTally();
    const result = await deps.backend.chat({ ...request, onEvent: tally.add });
    if (result.error?.code === "SESSION_FORBIDDEN")
      return jsonError(c, 403, "HTTP_FORBIDDEN", result.error.message);
    if (result.error) return c.json({ error: failure(result) }, 502, NO_RETRY);
    const ids = completionIds(model);
    return c.json(completion(ids, result.reply, tally.finishReason(), tally.usage()));
  };

  const answerStream = (c: Context, request: ChatBackendRequest, turn: ChatCompletionTurn) =>
    streamSSE(c, async (stream) => {
      const ids = completionIds(turn.model);
      const tally = createUsageTally();
      const send = (data: unknown) => stream.writeSSE({ data: JSON.stringify(data) });
      const keepAlive = setInterval(() => {
        void stream.write(": keep-alive\n\n");
      }, deps.keepAliveMs);
      try {
        await send(
          completionChunk(ids, { role: "assistant", content: "" }, null, turn.includeUsage),
        );
        const pending: Promise<void>[] = [];
        const result = await deps.backend.chat({
          ...request,
          onEvent: (event) => {
            tally.add(event);
            const delta = textDeltaOf(event);
            if (delta)
              pending.push(send(completionChunk(ids, { content: delta }, null, turn.includeUsage)));
          },
        });
        await Promise.all(pending);
        if (result.error) await send({ error: failure(result) });
        else {
          await send(completionChunk(ids, {}, tally.finishReason(), turn.includeUsage));
          if (turn.includeUsage) await send(usageChunk(ids, tally.usage()));
        }
        await stream.writeSSE({ data: "[DONE]" });
      } finally {
        clearInterval(keepAlive);
      }
    });

  return {
    models: (c: Context) =>
      c.json({ object: "list", data: [model, ...plain.ids().map(plainModel)] }),

    model: (c: Context) => {
      const id = c.req.param("model") ?? "";
      if (id === CLAWBOX_MODEL) return c.json(model);
      if (plain.ids().includes(id)) return c.json(plainModel(id));
      return unknownModel(c, `The model "${id.slice(0, 80)}" does not exist on this box`);
    },

    async chatCompletions(c: Context): Promise<Response> {
      let raw: unknown;
      try {
        raw = await c.req.json();
      } catch {
        return jsonError(c, 400, "HTTP_BAD_REQUEST", "body is not valid JSON");
      }
      const id = (raw as { model?: unknown } | null)?.model;
      if (typeof id === "string" && id !== CLAWBOX_MODEL) {
        const answered = plain.complete(c, id, raw);
        if (answered) return answered;
      }
      const read = readChatCompletion(raw, c.req.header(SESSION_HEADER));
      if (!read.ok) {
        return read.kind === "unknown-model"
          ? unknownModel(c, read.message)
          : jsonError(c, 400, "HTTP_BAD_REQUEST", read.message);
      }
      const { turn } = read;
      const sessionKey = sessionKeyOf(c, turn);
      if (typeof sessionKey !== "string") return sessionKey;
      // Every request here carried server.token (mount-openai-api.ts): an owner turn.
      const request: ChatBackendRequest = {
        sessionKey,
        text: turn.text,
        ...(turn.images.length > 0 ? { images: turn.images } : {}),
        channel: CHANNEL,
        senderId: WEB_TOKEN_SENDER,
        chatType: "direct",
        authenticatedOwner: true,
        signal: c.req.raw.signal,
      };
      const admitted = deps.backend.checkSession?.(request);
      if (admitted && !admitted.ok) return jsonError(c, 403, "HTTP_FORBIDDEN", admitted.message);
      noIdleTimeout(c);
      c.header("x-clawbox-session-key", sessionKey);
      return turn.stream ? answerStream(c, request, turn) : answerWhole(c, request, turn.model);
    },
  };
}

export type OpenAiRoutes = ReturnType<typeof createOpenAiRoutes>;
