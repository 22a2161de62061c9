/**
 * The one place that decides which session a turn goes to and who a session belongs
 * to. Built once from `config.agent` at start and handed to every area that starts
 * turns (server, console, channels, MQTT, scheduler, CLI), so `directSessionMode` and the
 * owner list are read in one place. `agent.owners` is read on every call: an owner added
 * at runtime (pairing) is an owner for the very next turn, without a restart.
 */
import { ClawboxError } from "../errors/index.ts";
import {
  identityOf,
  parseSenderAddress,
  peerOfSender,
  senderAddress,
} from "./channel-identities.ts";
import { type Conversation, type ConversationChatType, conversation } from "./conversation.ts";
import { isOwnerSender } from "./owner-rule.ts";
import {
  ANONYMOUS,
  describePrincipal,
  groupPrincipal,
  HOUSEHOLD,
  OWNER,
  type Principal,
} from "./principal.ts";
import {
  checkSessionKey,
  conversationKey,
  looksLikeKey,
  parseSessionKey,
  type SystemSession,
  systemSessionKey,
} from "./session-key.ts";
import {
  isShortName,
  NAME_CHANNEL,
  OWNER_PEER,
  SURFACE_CHANNEL,
  type Surface,
  WEB_LOCAL_PEER,
} from "./session-names.ts";

/** Sender of an HTTP request without the token: a stranger unless listed in agent.owners. */
export const WEB_LOCAL_SENDER = "web:local";
/** Home Assistant over MQTT: a stranger unless listed in agent.owners. */
export const MQTT_SENDER = "mqtt:home-assistant";
const MQTT_PEER = "home-assistant";
/** The person at the box's terminal. */
export const CLI_SENDER = "cli";

export interface AgentSessionConfig {
  id: string;
  directSessionMode: "per-peer" | "main";
  owners: readonly string[];
}

/** The facts of a turn that decide its principal. */
export interface TurnIdentity {
  channel: string;
  chatType: "direct" | "group" | "system";
  senderId?: string | undefined;
  groupId?: string | undefined;
  /** The channel itself proved the sender is the owner (HTTP API with server.token). */
  authenticatedOwner?: boolean | undefined;
}

/** What a session row tells about ownership (`principal` null: stored before it was recorded). */
export interface StoredOwnership {
  sessionKey: string;
  principal: string | null;
}

export type Admission =
  | { ok: true; principal: Principal }
  | { ok: false; principal: Principal; holder: Principal; message: string };

/** Where a proactive message about a turn goes (peer absent: its session is the delivery). */
export interface ReplyAddress {
  channel: string;
  chatType: "direct" | "group" | "system";
  peer?: string;
}

export interface SessionResolver {
  readonly agentId: string;
  isOwner(sender: string | undefined): boolean;
  /** A channel message's session: per peer and per group; only owners' direct chats fold into main. */
  forMessage(input: {
    channel: string;
    chatType: ConversationChatType;
    /** The sender's platform id. */
    senderId: string;
    groupId?: string | undefined;
  }): string;
  /** A surface's default session: the owner's (folded into main with directSessionMode "main"), or a tokenless web client's. */
  defaultSession(surface: Surface, owner: boolean): string;
  /** A short name or a full key given on `surface` → the key. Throws SESSION_KEY_INVALID. */
  resolve(nameOrKey: string, surface: Surface): string;
  system(name: SystemSession): string;
  /** The key of an imported copy that has no key of its own. */
  importKey(sessionId: string): string;
  /** The conversation a key names (undefined for system sessions and foreign keys). */
  conversationOf(key: string): Conversation | undefined;
  principalOfTurn(turn: TurnIdentity): Principal;
  /** The principal a key is reserved for by its shape; undefined: whoever speaks in it first. */
  reservedFor(key: string): Principal | undefined;
  /** Who a session belongs to: its recorded principal, else what its key implies (else the owner). */
  principalOfSession(session: StoredOwnership): Principal;
  /** May a turn of `principal` land in the session under `key` (stored row or none yet)? */
  admit(key: string, stored: StoredOwnership | undefined, principal: Principal): Admission;
  /** Where proactive news about a turn goes. */
  replyAddress(turn: TurnIdentity): ReplyAddress;
}

export function createSessionResolver(agent: AgentSessionConfig): SessionResolver {
  const agentId = agent.id;
  const isOwner = (sender: string | undefined) => isOwnerSender(agent.owners, sender);
  const principalOfSender = (sender: string): Principal => {
    if (isOwner(sender)) return OWNER;
    return identityOf(parseSenderAddress(sender).identity).household ? HOUSEHOLD : sender;
  };
  const keyOf = (channel: string, chatType: ConversationChatType, peer: string) =>
    conversationKey(agentId, conversation(channel, chatType, peer));

  const reservedFor = (key: string): Principal | undefined => {
    const parsed = parseSessionKey(key);
    if (!parsed || parsed.agentId !== agentId) return undefined;
    if (parsed.kind === "system") return OWNER;
    const { channel, chatType, peer, identity } = parsed.conversation;
    if (chatType === "group") return groupPrincipal(channel, peer);
    if (identityOf(channel).peers === "platform")
      return principalOfSender(senderAddress(channel, peer));
    if (identity === "cli" || identity === "import") return OWNER;
    if (identityOf(channel).household) return principalOfSender(senderAddress(channel, peer));
    // The token's own name and the CLI's are the owner's too: a tokenless client that
    // names `web:direct:token` or `web:direct:cli` first does not come to own them.
    if (identity === "web" && (peer === OWNER_PEER || peer === "token" || peer === "cli"))
      return OWNER;
    if (identity === "web" && peer === WEB_LOCAL_PEER) return principalOfSender(WEB_LOCAL_SENDER);
    if (identity === "mqtt" && peer === MQTT_PEER) return principalOfSender(MQTT_SENDER);
    return undefined;
  };

  /** For a sender refused in the owner's session: how they become an owner again. */
  const notAnOwner = (holder: Principal, principal: Principal): string =>
    holder === OWNER && principal !== ANONYMOUS && !principal.startsWith("group:")
      ? ` (${principal} is not in agent.owners; at the box's terminal, clawbox pairing add ${principal} makes it one, or add it to agent.owners in the config file)`
      : "";

  const principalOfSession = (session: StoredOwnership): Principal =>
    session.principal ?? reservedFor(session.sessionKey) ?? OWNER;

  return {
    agentId,
    isOwner,
    forMessage(input) {
      if (input.chatType === "group") {
        if (!input.groupId)
          throw new ClawboxError("SESSION_KEY_INVALID", "a group message without a group id");
        return keyOf(input.channel, "group", input.groupId);
      }
      const owner = isOwner(senderAddress(input.channel, input.senderId));
      if (owner && agent.directSessionMode === "main") return systemSessionKey(agentId, "main");
      return keyOf(input.channel, "direct", input.senderId);
    },
    defaultSession(surface, owner) {
      // Home Assistant is a device, not a person: its session is never folded into main.
      if (surface === "mqtt") return keyOf("mqtt", "direct", MQTT_PEER);
      if (owner && agent.directSessionMode === "main") return systemSessionKey(agentId, "main");
      const peer = owner || surface !== "web" ? OWNER_PEER : WEB_LOCAL_PEER;
      return keyOf(SURFACE_CHANNEL[surface], "direct", peer);
    },
    resolve(nameOrKey, surface) {
      if (looksLikeKey(nameOrKey)) {
        checkSessionKey(nameOrKey, agentId);
        return nameOrKey;
      }
      if (!isShortName(nameOrKey) || /^\.+$/.test(nameOrKey)) {
        throw new ClawboxError(
          "SESSION_KEY_INVALID",
          `session: "${nameOrKey.slice(0, 80)}" is not a valid session name`,
          { hint: 'use a short name such as "kitchen" (letters, digits, . _ @ + -, at most 64)' },
        );
      }
      return keyOf(NAME_CHANNEL[surface], "direct", nameOrKey);
    },
    system: (name) => systemSessionKey(agentId, name),
    importKey: (sessionId) => keyOf("import", "direct", sessionId),
    conversationOf(key) {
      const parsed = parseSessionKey(key);
      return parsed?.kind === "conversation" ? parsed.conversation : undefined;
    },
    principalOfTurn(turn) {
      if (turn.authenticatedOwner) return OWNER;
      if (turn.chatType === "group" && turn.groupId)
        return groupPrincipal(turn.channel, turn.groupId);
      return turn.senderId ? principalOfSender(turn.senderId) : ANONYMOUS;
    },
    reservedFor,
    principalOfSession,
    admit(key, stored, principal) {
      const holder = stored ? principalOfSession(stored) : (reservedFor(key) ?? principal);
      if (holder === principal) return { ok: true, principal };
      return {
        ok: false,
        principal,
        holder,
        message: `session ${key.slice(0, 120)} belongs to ${describePrincipal(holder)}; a turn from ${describePrincipal(principal)} cannot be added to it${notAnOwner(holder, principal)}`,
      };
    },
    replyAddress(turn) {
      const peer =
        turn.chatType === "group" ? turn.groupId : peerOfSender(turn.senderId, turn.channel);
      return { channel: turn.channel, chatType: turn.chatType, ...(peer ? { peer } : {}) };
    },
  };
}
