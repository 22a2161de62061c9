/**
 * The prompt overhead the context engine budgets for, as the provider reports it
 * (providers/prompt-overhead.ts: the local provider's chat-template markup, tools block
 * and tool-result wrapper; nothing for cloud APIs), measured once per token counter.
 * The context area never reads a provider's wire format itself.
 */
import { type ModelKind, type PromptOverhead, promptOverhead } from "../providers/index.ts";
import type { TokenCounter } from "./token-counter.ts";

export type TemplateOverhead = PromptOverhead;

const measured = new WeakMap<TokenCounter, Map<ModelKind, Promise<TemplateOverhead>>>();

/** The overhead for `modelKind` measured with `counter` (cached per counter). */
export function templateOverhead(
  counter: TokenCounter,
  modelKind: ModelKind,
): Promise<TemplateOverhead> {
  let byKind = measured.get(counter);
  if (!byKind) {
    byKind = new Map();
    measured.set(counter, byKind);
  }
  let known = byKind.get(modelKind);
  if (!known) {
    known = promptOverhead(modelKind, counter);
    byKind.set(modelKind, known);
  }
  return known;
}
