export { AssistantMessageBuilder } from "./assistant-message-builder.ts";
export {
  createFakeProvider,
  type FakeProvider,
  type FakeProviderOptions,
  type FakeScript,
  type FakeStep,
} from "./fake-provider.ts";
export { LocalProvider } from "./local/local-provider.ts";
export type {
  Provider,
  ProviderEvent,
  ProviderKind,
  ProviderRequest,
  ProviderStats,
  RequestStats,
  ThinkingLevel,
  ToolDefinition,
} from "./provider.ts";
export { createProvider, type ProviderDeps, ProviderRegistry } from "./provider-registry.ts";
export { type CostPerMillion, computeCost, makeUsage } from "./usage-cost.ts";
