export type {
  Provider,
  ProviderEvent,
  ProviderKind,
  ProviderRequest,
  ThinkingLevel,
  ToolDefinition,
} from "./provider.ts";
