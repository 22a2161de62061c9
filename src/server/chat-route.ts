/**
 * `POST /api/chat`: one turn through the agent, answered as JSON or streamed as SSE
 * (docs/HTTP-API.md). A turn on a Pi can take minutes, so the request's idle timeout is
 * switched off for it (Bun would otherwise abort it after `idleTimeout`). A stream speaks
 * the one chat-stream vocabulary (agent/chat-stream.ts): the reply's `delta`s, then
 * `done` or `error`, with keep-alive comments while the model is quiet.
 */
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { streamChatTurn } from "../agent/index.ts";
import { isClawboxError } from "../errors/index.ts";
import { z } from "../schema/index.ts";
import { type SessionResolver, WEB_LOCAL_SENDER, WEB_TOKEN_SENDER } from "../sessions/index.ts";
import type { ChatBackend, ChatBackendRequest } from "./chat-backend.ts";
import { jsonError } from "./json-error.ts";
import { noIdleTimeout } from "./no-idle-timeout.ts";
import { isOwnerRequest } from "./owner-token.ts";
import { webSessionKey } from "./web-session.ts";

export const chatBody = z.object({
  message: z.string().check(
    z.maxLength(100_000),
    z.refine((text) => text.trim().length > 0, "must not be empty or only spaces"),
  ),
  /** Short session name or (owner only) a full session key. */
  session: z.optional(z.string().check(z.minLength(1), z.maxLength(300))),
  stream: z.optional(z.boolean()),
});

export interface ChatRouteOptions {
  backend: ChatBackend;
  sessions: SessionResolver;
  /** Milliseconds between SSE keep-alive comments. */
  keepAliveMs: number;
}

async function readChatBody(c: Context) {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    return { error: jsonError(c, 400, "HTTP_BAD_REQUEST", "body is not valid JSON") };
  }
  const parsed = chatBody.safeParse(raw);
  if (!parsed.success) {
    const message = parsed.error.issues
      .map((i) => `${i.path.join(".") || "body"}: ${i.message}`)
      .join("; ");
    return { error: jsonError(c, 400, "HTTP_BAD_REQUEST", message) };
  }
  return { body: parsed.data };
}

export function mountChatRoute(app: Hono, options: ChatRouteOptions): void {
  app.post("/api/chat", async (c) => {
    const read = await readChatBody(c);
    if (!read.body) return read.error;
    const body = read.body;
    const owner = isOwnerRequest(c);
    let sessionKey: string;
    try {
      sessionKey = webSessionKey({ sessions: options.sessions, session: body.session, owner });
    } catch (error) {
      if (!isClawboxError(error)) throw error;
      return error.code === "HTTP_FORBIDDEN"
        ? jsonError(c, 403, "HTTP_FORBIDDEN", error.message)
        : jsonError(c, 400, "HTTP_BAD_REQUEST", error.message);
    }
    const request: ChatBackendRequest = {
      sessionKey,
      text: body.message,
      channel: "web",
      senderId: owner ? WEB_TOKEN_SENDER : WEB_LOCAL_SENDER,
      chatType: "direct",
      ...(owner ? { authenticatedOwner: true } : {}),
      signal: c.req.raw.signal,
    };
    // A turn from another principal never lands in a session (SPEC §9a): 403, nothing stored.
    const admitted = options.backend.checkSession?.(request);
    if (admitted && !admitted.ok) return jsonError(c, 403, "HTTP_FORBIDDEN", admitted.message);
    noIdleTimeout(c);
    const wantsStream =
      body.stream === true || (c.req.header("accept") ?? "").includes("text/event-stream");
    if (!wantsStream) {
      const result = await options.backend.chat(request);
      if (result.error?.code === "SESSION_FORBIDDEN")
        return jsonError(c, 403, "HTTP_FORBIDDEN", result.error.message);
      return c.json(result, result.error ? 502 : 200);
    }
    return streamSSE(c, (stream) =>
      streamChatTurn(stream, { detail: "reply", keepAliveMs: options.keepAliveMs }, (onEvent) =>
        options.backend.chat({ ...request, onEvent }),
      ),
    );
  });
  app.all("/api/chat", (c) =>
    jsonError(c, 405, "HTTP_METHOD_NOT_ALLOWED", `${c.req.method} /api/chat: use POST`, {
      Allow: "POST",
    }),
  );
}
