export type { AgentEvent, AssistantStreamEvent } from "./agent-events.ts";
export type { ChatRequest, ChatResult } from "./chat-request.ts";
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
