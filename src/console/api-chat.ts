/**
 * POST /console/api/chat: one chat turn, streamed as server-sent events in the one
 * chat-stream vocabulary (agent/chat-stream.ts, the same as `POST /api/chat`'s) with the
 * turn's work included — `delta` (reply text), `tool` / `tool_end` (shown folded),
 * `compaction`, then `done` or `error` with the result.
 * /new and /compact are the agent's own chat commands, so they work here as everywhere.
 * The console speaks as the owner (see docs/CONSOLE.md): only a browser that logged in
 * (login secret, `server.token` or a one-time link) reaches this route.
 */
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { streamChatTurn } from "../agent/index.ts";
import { isClawboxError } from "../errors/index.ts";
import { consoleSpeaker } from "../pairing/index.ts";
import { z } from "../schema/index.ts";
import type { ConsoleDeps } from "./console-deps.ts";
import type { ConsoleEnv } from "./console-env.ts";
import { apiError, readBody } from "./json-body.ts";

const MAX_IMAGE_BASE64 = 8 * 1024 * 1024;
const MAX_IMAGES = 4;
/** Keep-alive comments while the model is quiet, as `/api/chat` sends them by default. */
const CHAT_KEEP_ALIVE_MS = 15_000;
/** A chat request at its largest: four images, the message and JSON around them. */
export const MAX_CHAT_BODY_BYTES = MAX_IMAGES * MAX_IMAGE_BASE64 + 512 * 1024;

const chatBody = z.object({
  /** A session key, or a short name as `clawbox chat --session` takes it. */
  session: z.optional(z.string().check(z.minLength(1), z.maxLength(300))),
  message: z.string().check(z.minLength(1), z.maxLength(100_000)),
  images: z.optional(
    z
      .array(
        z.object({
          data: z.string().check(z.minLength(1), z.maxLength(MAX_IMAGE_BASE64)),
          mimeType: z.enum(["image/png", "image/jpeg", "image/webp", "image/gif"]),
        }),
      )
      .check(z.maxLength(MAX_IMAGES)),
  ),
});

/** The owner identity the console speaks as: `cli` while it is an owner, else the first. */
export function consoleSender(deps: ConsoleDeps): string {
  return consoleSpeaker(deps.config.agent.owners);
}

/**
 * The console's default session: the same one the HTTP API uses for the web owner (the
 * agent's main session with `agent.directSessionMode: "main"`).
 */
export function defaultConsoleSession(deps: ConsoleDeps): string {
  return deps.sessions.defaultSession("console", deps.sessions.isOwner(consoleSender(deps)));
}

/** The key a console request names: a key, or a name resolved as the CLI resolves it. */
export function consoleSessionKey(deps: ConsoleDeps, session: string | undefined): string {
  return session === undefined
    ? defaultConsoleSession(deps)
    : deps.sessions.resolve(session, "console");
}

export function registerChatRoutes(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  app.post("/console/api/chat", async (c) => {
    const body = await readBody(c, chatBody);
    if (!body.ok) return body.response;
    const { session, message, images } = body.value;
    let sessionKey: string;
    try {
      sessionKey = consoleSessionKey(deps, session);
    } catch (error) {
      if (!isClawboxError(error, "SESSION_KEY_INVALID")) throw error;
      return apiError(c, 400, "HTTP_BAD_REQUEST", error.message);
    }
    const request = {
      sessionKey,
      text: message,
      channel: "web",
      senderId: consoleSender(deps),
      chatType: "direct" as const,
      signal: c.req.raw.signal,
      ...(images && images.length > 0
        ? { images: images.map((i) => ({ type: "image" as const, ...i })) }
        : {}),
    };
    // The owner does not write into a stranger's session either (SPEC §9a): 403, nothing stored.
    const admitted = deps.agent.checkSession?.(request);
    if (admitted && !admitted.ok) return apiError(c, 403, "SESSION_FORBIDDEN", admitted.message);
    return streamSSE(c, (stream) =>
      streamChatTurn(stream, { detail: "work", keepAliveMs: CHAT_KEEP_ALIVE_MS }, (onEvent) =>
        deps.agent.chat({ ...request, onEvent }),
      ),
    );
  });
}
