export { AnthropicProvider } from "./anthropic/anthropic-provider.ts";
export { AssistantMessageBuilder } from "./assistant-message-builder.ts";
export { type AuthProfile, AuthProfiles, parseRetryAfter } from "./auth-profiles.ts";
export {
  classifyHttpError,
  classifyStreamError,
  classifyThrown,
  isBillingText,
  isOverflowText,
  isRateLimitText,
} from "./classify-error.ts";
export { createProvider, type ProviderDeps } from "./create-provider.ts";
export { failureMessage } from "./failure-message.ts";
export { toolsSection as localToolsSection } from "./local/chat-prompt.ts";
export {
  CHATML_TEMPLATE,
  chatTemplateOfFile,
  describeChatTemplate,
} from "./local/chat-template.ts";
export { LocalProvider } from "./local/local-provider.ts";
export { type LocalTokenizer, openLocalTokenizer } from "./local/local-tokenizer.ts";
export {
  localContextWindow,
  localModelName,
  type ModelWindow,
  primaryModel,
  primaryModelWindow,
} from "./model-window.ts";
export { OpenAIProvider } from "./openai/openai-provider.ts";
export type {
  ChatTemplate,
  Provider,
  ProviderEvent,
  ProviderKind,
  ProviderRequest,
  ProviderStats,
  RequestStats,
  ThinkingLevel,
  ToolDefinition,
} from "./provider.ts";
export { RemoteProvider, type RemoteProviderDeps } from "./remote-provider.ts";
export { normalizeToolSchema, type SchemaDialect } from "./tool-schema.ts";
export { type CostPerMillion, computeCost, makeUsage, withCost } from "./usage-cost.ts";
