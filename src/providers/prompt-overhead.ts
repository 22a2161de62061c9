/**
 * What a provider adds around the text the context engine measures, reported by the
 * providers area because only it knows its wire format. The local provider renders the
 * model's own chat template (ChatML until the model is loaded and its template known)
 * and tokenizes each piece on its own: the markup between turns, the tools block in
 * JSON mode, each tool result wrapped by `toolResponseText`; the figures here are
 * measured from those same functions, so a change to the wrapping changes the budget
 * with it. On a small vocabulary (stories260K: 512 tokens) a header alone is a dozen
 * tokens, so a budget that ignored them would overflow a 2048-token window. Markup is
 * counted as plain text: an over-estimate where it is special tokens, the safe side.
 * Cloud providers report no markup: their overhead is small against their windows and
 * inside the estimator's margin.
 */
import { toolResponseText, toolsSection } from "./local/chat-prompt.ts";
import { CHATML_TEMPLATE } from "./local/chat-template.ts";
import type { ChatTemplate, Provider } from "./provider.ts";

/** How the context engine budgets for a provider: a local model or a cloud API. */
export type ModelKind = "local" | "cloud";

export interface PromptOverhead {
  /** Added to every history or pending message: role header, turn end, piece boundary. */
  perMessage: number;
  /** Extra for a tool result: its wrapper. */
  toolResult: number;
  /** A tool result's growth from escaping, as a share of its own tokens. */
  toolResultGrowth: number;
  /** Around the system prompt, plus BOS and the reply's assistant header. */
  frame: number;
  /** The tools block's instructions when any tool schema is sent. */
  toolsBlock: number;
  /** Slack for piece boundaries and counts that differ by a token or two. */
  slack: number;
}

/** What a provider's overhead is measured with: the model's own counter and template. */
export interface OverheadCounter {
  count(text: string): Promise<number>;
  readonly template?: ChatTemplate;
}

/** Tool results go out as JSON text either way; escaping grows them a little. */
const TOOL_RESULT_GROWTH = 0.1;

const CLOUD: PromptOverhead = {
  perMessage: 0,
  toolResult: 0,
  toolResultGrowth: TOOL_RESULT_GROWTH,
  frame: 0,
  toolsBlock: 0,
  slack: 0,
};

export function modelKindOf(provider: Pick<Provider, "kind">): ModelKind {
  return provider.kind === "local" ? "local" : "cloud";
}

async function measureLocal(counter: OverheadCounter): Promise<PromptOverhead> {
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
  const wrapper = await counter.count(toolResponseText("", false, ""));
  const tools = await counter.count(toolsSection([]));
  return {
    // Two gaps at most before a message (an empty user turn between two assistant ones).
    perMessage: 2 * Math.max(...gaps) + 1,
    toolResult: wrapper + 4,
    toolResultGrowth: TOOL_RESULT_GROWTH,
    frame: start + reply + 2,
    toolsBlock: tools + 2,
    slack: 8,
  };
}

/** The overhead of a `modelKind` provider, measured with `counter` (local models only). */
export function promptOverhead(
  modelKind: ModelKind,
  counter: OverheadCounter,
): Promise<PromptOverhead> {
  return modelKind === "local" ? measureLocal(counter) : Promise.resolve(CLOUD);
}
