/**
 * Tokens a local model's chat template adds around what the engine measures. The local
 * provider renders ChatML and tokenizes each piece on its own: role headers and turn
 * ends, the tools block in JSON mode, tool results wrapped in `<tool_response>` JSON.
 * On a small vocabulary (stories260K: 512 tokens) a header alone is a dozen tokens, so
 * a budget that ignores them overflows a 2048-token window. Measured with the model's
 * own counter (markup counted as plain text: an over-estimate where it is special
 * tokens, which is the safe side). Cloud providers get zero: their overhead is small
 * against their windows and already inside the estimator's margin.
 */
import type { ModelKind } from "./context-engine.ts";
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

const USER_HEADER = "<|im_start|>user\n";
const TURN_END = "<|im_end|>\n";
const SYSTEM_HEADER = "<|im_start|>system\n";
const ASSISTANT_HEADER = "<|im_start|>assistant\n";
const TOOL_WRAPPER = '<tool_response>\n{"name":"","isError":false,"content":""}\n</tool_response>';
const TOOLS_BLOCK = [
  "\n\n# Tools",
  'Reply with one JSON object: {"type":"toolCall","name":"<tool>","arguments":{...}} to call a tool,',
  'or {"type":"text","text":"<answer>"} to answer.',
  "<tools>",
  "</tools>\n",
].join("\n");

const measured = new WeakMap<TokenCounter, Promise<TemplateOverhead>>();

async function measure(counter: TokenCounter): Promise<TemplateOverhead> {
  const user = await counter.count(USER_HEADER);
  const end = await counter.count(TURN_END);
  const system = await counter.count(SYSTEM_HEADER);
  const assistant = await counter.count(ASSISTANT_HEADER);
  const wrapper = await counter.count(TOOL_WRAPPER);
  const tools = await counter.count(TOOLS_BLOCK);
  return {
    perMessage: user + end + 1,
    toolResult: wrapper + 4,
    frame: system + end + assistant + 2,
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
