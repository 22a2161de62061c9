/**
 * Which session a web request may use. A short name ("kitchen") becomes
 * `agent:<id>:web:direct:<name>`. A full key is accepted only from the owner (valid
 * `server.token`); anyone else stays inside the web channel's namespace
 * (`agent:<id>:web:…`), so a web page cannot write into the owner's CLI or QQ session.
 * Keys are plain: no NUL, slashes, `..`, empty segments or a lone ":".
 */
import { buildSessionKey } from "../context/index.ts";
import { ClawboxError } from "../errors/index.ts";

const SHORT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;
const SEGMENT = /^[A-Za-z0-9._@+-]{1,128}$/;

const invalid = (session: string, why: string) =>
  new ClawboxError("HTTP_BAD_REQUEST", `session: "${session.slice(0, 80)}" ${why}`, {
    hint: 'use a short name such as "kitchen" (letters, digits, . _ @ + -)',
  });

function checkKey(session: string): void {
  if (session.length > 300) throw invalid(session, "is longer than 300 characters");
  const segments = session.split(":");
  if (segments.length < 3 || segments[0] !== "agent")
    throw invalid(session, 'is not a session key of the form "agent:<id>:<channel>:…"');
  for (const segment of segments) {
    if (!SEGMENT.test(segment) || /^\.+$/.test(segment))
      throw invalid(session, "has an empty or invalid part");
  }
}

export interface WebSessionInput {
  agentId: string;
  /** The `session` field of the request, if any. */
  session: string | undefined;
  /** The request carried the owner's token. */
  owner: boolean;
  /**
   * `agent.directSessionMode`: with "main" the owner's default web session is the agent's
   * main session, shared with the CLI and direct channel chats. Never for tokenless clients.
   */
  directSessionMode?: "per-peer" | "main";
}

/** The session key for a web request, or a HTTP_BAD_REQUEST / HTTP_FORBIDDEN error. */
export function webSessionKey(input: WebSessionInput): string {
  const { agentId, session } = input;
  if (session === undefined) {
    return input.owner
      ? buildSessionKey(
          { agentId, channel: "web", chatType: "direct", peerId: "owner" },
          input.directSessionMode ?? "per-peer",
        )
      : `agent:${agentId}:web:direct:local`;
  }
  if (!session.includes(":")) {
    if (!SHORT_NAME.test(session) || /^\.+$/.test(session))
      throw invalid(session, "is not a valid session name");
    return `agent:${agentId}:web:direct:${session}`;
  }
  checkKey(session);
  if (!input.owner && !session.startsWith(`agent:${agentId}:web:`)) {
    throw new ClawboxError(
      "HTTP_FORBIDDEN",
      `session: "${session.slice(0, 80)}" is outside the web channel; only the owner (with server.token) may name other sessions`,
      { hint: `use a short name, or a key starting with agent:${agentId}:web:` },
    );
  }
  return session;
}
