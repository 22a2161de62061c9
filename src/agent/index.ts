/**
 * The agent: one turn from a person's message to the reply (context, model calls with
 * fallback, tools, steering and follow-ups), sessions queued one turn at a time, and the
 * slash commands. Channels, the server and the CLI depend on it, never the reverse.
 */
export type { AgentEvent, AssistantStreamEvent } from "./agent-events.ts";
export type { ChatRequest, ChatResult } from "./chat-request.ts";
export {
  streamChatTurn,
  type TurnEventLike,
  textDeltaOf,
} from "./chat-stream.ts";
export {
  type CleanedOutput,
  cleanOutput,
  SILENT_TOKENS,
  stripInternalTags,
} from "./clean-output.ts";
export { type Agent, type AgentDeps, createAgent } from "./create-agent.ts";
export type { ProviderLookup, ProviderSource } from "./provider-source.ts";
export {
  createSessionGate,
  type ExclusiveOptions,
  type SessionGate,
} from "./session-gate.ts";
export { parseSlashCommand, SLASH_COMMAND_NAMES } from "./slash-commands.ts";
