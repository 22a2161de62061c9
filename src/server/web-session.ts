/**
 * Which session a web request names. No name: the owner's default web session (with
 * the token) or the tokenless client's `agent:<id>:web:direct:local`. A short name
 * ("kitchen") is a session inside the web channel (`agent:<id>:web:direct:kitchen`). A
 * full key must be well formed (400 otherwise), and a client without the token must stay
 * inside the web channel (403); who may then write into that session is the agent's
 * ownership check (a tokenless client naming the owner's web session also gets 403).
 */
import { ClawboxError } from "../errors/index.ts";
import type { SessionResolver } from "../sessions/index.ts";

export interface WebSessionInput {
  sessions: SessionResolver;
  /** The `session` field of the request, if any. */
  session: string | undefined;
  /** The request carried the owner's token. */
  owner: boolean;
}

/** The session key for a web request, or a SESSION_KEY_INVALID / HTTP_FORBIDDEN error. */
export function webSessionKey(input: WebSessionInput): string {
  const { sessions, session } = input;
  if (session === undefined) return sessions.defaultSession("web", input.owner);
  const key = sessions.resolve(session, "web");
  if (!input.owner && sessions.conversationOf(key)?.channel !== "web") {
    throw new ClawboxError(
      "HTTP_FORBIDDEN",
      `session: "${session.slice(0, 80)}" is outside the web channel; only the owner (with server.token) may name other sessions`,
      { hint: `use a short name, or a key starting with agent:${sessions.agentId}:web:` },
    );
  }
  return key;
}
