/**
 * Session keys (SPEC §6): `agent:<agentId>:<channel>:<chatType>:<peerId>`. With
 * `directSessionMode: "main"` every direct chat collapses into `agent:<agentId>:main`.
 */
import { ClawboxError } from "../errors/index.ts";

export type SessionChatType = "direct" | "group" | "system";

export interface SessionKeyParts {
  agentId: string;
  channel: string;
  chatType: SessionChatType;
  peerId: string;
}

const SEGMENT = /^[^:\s]+$/;

function check(name: string, value: string): void {
  if (!SEGMENT.test(value)) {
    throw new ClawboxError(
      "CONFIG_INVALID",
      `session key ${name} "${value}" must be non-empty without ":" or spaces`,
    );
  }
}

export function mainSessionKey(agentId: string): string {
  check("agentId", agentId);
  return `agent:${agentId}:main`;
}

export function buildSessionKey(
  parts: SessionKeyParts,
  directSessionMode: "per-peer" | "main" = "per-peer",
): string {
  if (parts.chatType === "direct" && directSessionMode === "main")
    return mainSessionKey(parts.agentId);
  check("agentId", parts.agentId);
  check("channel", parts.channel);
  check("peerId", parts.peerId);
  return `agent:${parts.agentId}:${parts.channel}:${parts.chatType}:${parts.peerId}`;
}

/** Parts of a key, or undefined for keys of another shape (e.g. the main key). */
export function parseSessionKey(key: string): SessionKeyParts | undefined {
  const m = /^agent:([^:]+):([^:]+):(direct|group|system):(.+)$/.exec(key);
  if (!m) return undefined;
  return {
    agentId: m[1] ?? "",
    channel: m[2] ?? "",
    chatType: m[3] as SessionChatType,
    peerId: m[4] ?? "",
  };
}
