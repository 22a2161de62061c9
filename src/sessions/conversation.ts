/**
 * A conversation's address: which channel (and so which identity), direct or group, and
 * the peer (a user's platform id, a group id, or a name the surface chose). Session keys
 * and proactive delivery targets are both built from it. `heartbeat.target` is written
 * in the same form: `qq:direct:OPENID`, `wecom-bot:group:CHATID`.
 */
import { ClawboxError } from "../errors/index.ts";
import { identityOf } from "./channel-identities.ts";

export type ConversationChatType = "direct" | "group";

export interface Conversation {
  /** The sender namespace (`wecom` for both WeCom channels). */
  identity: string;
  /** The connection (`wecom-app`, `wecom-bot`, `qq`, `cli`, `web`, `mqtt`). */
  channel: string;
  chatType: ConversationChatType;
  /** User id (direct), group id (group), or a name (cli, web, mqtt). */
  peer: string;
}

/** One part of a key or target: no ":", whitespace, control characters, slashes, `.`/`..`. */
const SEGMENT = /^[^:\s\p{Cc}/\\]{1,128}$/u;

export function validSegment(value: string): boolean {
  return SEGMENT.test(value) && !/^\.+$/.test(value);
}

export function checkSegment(what: string, value: string): void {
  if (!validSegment(value)) {
    throw new ClawboxError(
      "SESSION_KEY_INVALID",
      `${what} "${value.slice(0, 80)}" is not usable in a session key (1-128 characters, no ":", spaces, slashes or "..")`,
    );
  }
}

export function conversation(
  channel: string,
  chatType: ConversationChatType,
  peer: string,
): Conversation {
  checkSegment("channel", channel);
  checkSegment("peer", peer);
  return { identity: identityOf(channel).identity, channel, chatType, peer };
}

/** `qq:direct:OPENID` (the form of `heartbeat.target` and of log lines). */
export function formatConversation(c: Pick<Conversation, "channel" | "chatType" | "peer">): string {
  return `${c.channel}:${c.chatType}:${c.peer}`;
}

/** `qq:direct:OPENID` → a conversation; undefined when malformed. */
export function parseConversation(text: string): Conversation | undefined {
  const match = /^([a-z0-9_-]+):(direct|group):(.+)$/.exec(text);
  if (!match?.[1] || !match[3] || !validSegment(match[3])) return undefined;
  return conversation(match[1], match[2] === "group" ? "group" : "direct", match[3]);
}
