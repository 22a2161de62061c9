/**
 * The one rule for session keys (SPEC §6). A conversation's key is
 * `agent:<agentId>:<channel>:<direct|group>:<peer>`; the named system sessions are
 * `agent:<agentId>:main` (direct chats folded together), `agent:<agentId>:heartbeat` and
 * `agent:<agentId>:followups`. Every key is built, parsed and validated here and nowhere
 * else (test/architecture/session-keys-built-in-one-place.test.ts).
 */
import { ClawboxError } from "../errors/index.ts";
import {
  type Conversation,
  type ConversationChatType,
  checkSegment,
  conversation,
  validSegment,
} from "./conversation.ts";

export const SYSTEM_SESSIONS = ["main", "heartbeat", "followups"] as const;
export type SystemSession = (typeof SYSTEM_SESSIONS)[number];

export type ParsedSessionKey =
  | { kind: "conversation"; agentId: string; conversation: Conversation }
  | { kind: "system"; agentId: string; name: SystemSession };

export const MAX_KEY_LENGTH = 300;

const invalid = (key: string, why: string) =>
  new ClawboxError("SESSION_KEY_INVALID", `session key "${key.slice(0, 80)}" ${why}`, {
    hint: 'keys look like "agent:main:cli:direct:kitchen"; or give a short name such as "kitchen"',
  });

export function conversationKey(agentId: string, c: Conversation): string {
  checkSegment("agent id", agentId);
  return `agent:${agentId}:${c.channel}:${c.chatType}:${c.peer}`;
}

export function systemSessionKey(agentId: string, name: SystemSession): string {
  checkSegment("agent id", agentId);
  return `agent:${agentId}:${name}`;
}

/** The parts of a key; undefined for anything that is not a key of this shape. */
export function parseSessionKey(key: string): ParsedSessionKey | undefined {
  if (key.length > MAX_KEY_LENGTH) return undefined;
  const parts = key.split(":");
  if (parts[0] !== "agent" || !parts.every((p, i) => i === 0 || validSegment(p))) return undefined;
  const agentId = parts[1] ?? "";
  if (parts.length === 3) {
    const name = SYSTEM_SESSIONS.find((s) => s === parts[2]);
    return name ? { kind: "system", agentId, name } : undefined;
  }
  const [, , channel, chatType, peer] = parts;
  if (parts.length !== 5 || !channel || !peer) return undefined;
  if (chatType !== "direct" && chatType !== "group") return undefined;
  return {
    kind: "conversation",
    agentId,
    conversation: conversation(channel, chatType as ConversationChatType, peer),
  };
}

/** Throws SESSION_KEY_INVALID saying what is wrong with `key`; returns its parts. */
export function checkSessionKey(key: string, agentId?: string): ParsedSessionKey {
  if (key.length > MAX_KEY_LENGTH)
    throw invalid(key, `is longer than ${MAX_KEY_LENGTH} characters`);
  const parts = key.split(":");
  if (parts[0] !== "agent" || parts.length < 3)
    throw invalid(key, 'is not a session key of the form "agent:<id>:<channel>:…"');
  if (!parts.every((p, i) => i === 0 || validSegment(p)))
    throw invalid(key, "has an empty or invalid part");
  const parsed = parseSessionKey(key);
  if (!parsed)
    throw invalid(
      key,
      `is neither a conversation ("agent:<id>:<channel>:direct|group:<peer>") nor one of ${SYSTEM_SESSIONS.join(", ")}`,
    );
  if (agentId !== undefined && parsed.agentId !== agentId)
    throw invalid(key, `belongs to agent "${parsed.agentId}", not "${agentId}" (agent.id)`);
  return parsed;
}

/** True when `text` looks like a key (has ":"), as opposed to a short name or a session id. */
export function looksLikeKey(text: string): boolean {
  return text.includes(":");
}
