/**
 * Conversation identity (issue 22): which conversation a turn belongs to, the one rule
 * for session keys, the named system sessions, short names, and who each session
 * belongs to. Session keys are built and parsed only in this area; everyone else asks
 * the `SessionResolver` that `clawbox run` (or a CLI command) builds once from
 * `config.agent`. Depends on nothing but errors, so every area may use it.
 */
export {
  CHANNEL_IDENTITIES,
  type ChannelIdentity,
  type DeliveryKind,
  identityOf,
  parseSenderAddress,
  peerOfSender,
  senderAddress,
} from "./channel-identities.ts";
export {
  type Conversation,
  type ConversationChatType,
  formatConversation,
  parseConversation,
} from "./conversation.ts";
export { isOwnerSender, WEB_TOKEN_SENDER } from "./owner-rule.ts";
export { describePrincipal, HOUSEHOLD, OWNER, type Principal } from "./principal.ts";
export {
  checkSessionKey,
  type ParsedSessionKey,
  parseSessionKey,
  SYSTEM_SESSIONS,
  type SystemSession,
} from "./session-key.ts";
export { isShortName, type Surface, type VoiceOrigin, voiceRoomName } from "./session-names.ts";
export {
  type Admission,
  type AgentSessionConfig,
  CLI_SENDER,
  createSessionResolver,
  MQTT_SENDER,
  type ReplyAddress,
  type SessionResolver,
  type StoredOwnership,
  type TurnIdentity,
  WEB_LOCAL_SENDER,
} from "./session-resolver.ts";
