/**
 * Model providers: the local llama.cpp model and the cloud APIs (OpenAI-compatible,
 * Anthropic) behind one streaming `Provider` contract, with failures classified into
 * error codes the fallback policy branches on. Only what other areas use is exported.
 */
export { isOverflowText } from "./classify-error.ts";
export { createProvider } from "./create-provider.ts";
export { failureMessage } from "./failure-message.ts";
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
export {
  type ModelKind,
  modelKindOf,
  type OverheadCounter,
  type PromptOverhead,
  promptOverhead,
} from "./prompt-overhead.ts";
export type {
  ChatTemplate,
  Provider,
  ProviderKind,
  ProviderRequest,
  ThinkingLevel,
  ToolDefinition,
} from "./provider.ts";
export { type CostPerMillion, withCost } from "./usage-cost.ts";
