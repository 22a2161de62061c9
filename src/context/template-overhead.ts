/**
 * Tokens a local model's chat template adds around what the engine measures. The local
 * provider renders the model's own template (ChatML until the model is loaded and its
 * template known) and tokenizes each piece on its own: the markup between turns, the
 * tools block in JSON mode, tool results wrapped in `<tool_response>` JSON.
 * On a small vocabulary (stories260K: 512 tokens) a header alone is a dozen tokens, so
 * a budget that ignores them overflows a 2048-token window. Measured with the model's
 * own counter (markup counted as plain text: an over-estimate where it is special
 * tokens, which is the safe side). Cloud providers get zero: their overhead is small
 * against their windows and already inside the estimator's margin.
 */
import { CHATML_TEMPLATE, localToolsSection } from "../providers/index.ts";
import type { ModelKind } from "./run-kinds.ts";
import type { TokenCounter } from "./token-counter.ts";

export interface TemplateOverhead {
  /** Added to every history or pending message: role header, turn end, piece boundary. */
  perMessage: number;
  /** Extra for a tool result: the `<tool_response>` JSON wrapper and escaping. */
  toolResult: number;
  /** Around the system prompt, plus BOS and the reply's assistant header. */
  frame: number;
  /** The tools block's instructions when any tool schema is sent. */
  toolsBlock: number;
  /** Slack for piece boundaries and counts that differ by a token or two. */
  slack: number;
}

const NONE: TemplateOverhead = { perMessage: 0, toolResult: 0, frame: 0, toolsBlock: 0, slack: 0 };

const TOOL_WRAPPER = '<tool_response>\n{"name":"","isError":false,"content":""}\n</tool_response>';

const measured = new WeakMap<TokenCounter, Promise<TemplateOverhead>>();

async function measure(counter: TokenCounter): Promise<TemplateOverhead> {
  const template = counter.template ?? CHATML_TEMPLATE;
  const gaps = await Promise.all(
    [
      template.systemToUser,
      template.userToAssistant,
      template.assistantToUser,
      template.userToUser,
    ].map((gap) => counter.count(gap)),
  );
  const start = await counter.count(template.start);
  const reply = await counter.count(template.replyStart);
  const wrapper = await counter.count(TOOL_WRAPPER);
  const tools = await counter.count(localToolsSection([]));
  return {
    // Two gaps at most before a message (an empty user turn between two assistant ones).
    perMessage: 2 * Math.max(...gaps) + 1,
    toolResult: wrapper + 4,
    frame: start + reply + 2,
    toolsBlock: tools + 2,
    slack: 8,
  };
}

/** The overhead for `modelKind` measured with `counter` (cached per counter). */
export function templateOverhead(
  counter: TokenCounter,
  modelKind: ModelKind,
): Promise<TemplateOverhead> {
  if (modelKind !== "local") return Promise.resolve(NONE);
  let known = measured.get(counter);
  if (!known) {
    known = measure(counter);
    measured.set(counter, known);
  }
  return known;
}
