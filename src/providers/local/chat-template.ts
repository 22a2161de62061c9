/**
 * The chat template a local model is prompted with, taken from the GGUF itself:
 * node-llama-cpp's `resolveChatWrapper` picks a wrapper from the file's own Jinja
 * `tokenizer.chat_template` (a specialized wrapper when the template is equivalent to
 * one, the Jinja wrapper otherwise), or from the model's name and architecture when the
 * file carries none. The wrapper renders a whole conversation at once, which would
 * defeat the piecewise tokenization KV reuse relies on, so it is asked once to render a
 * conversation of placeholders, and the markup between them is kept as plain strings:
 * what comes before the system prompt, between turns, and the reply header. Special
 * tokens (BOS, EOS, EOT) are written as their text and parsed back when tokenized.
 */
import type { ChatHistoryItem, ChatWrapper, LlamaModel, LlamaTextJSON } from "node-llama-cpp";
import { ClawboxError, errorMessage } from "../../errors/index.ts";
import type { ChatTemplate } from "../provider.ts";
import { loadLlama } from "./llama-runtime.ts";

/** ChatML, what clawbox used before templates were read from the GGUF; the fallback. */
export const CHATML_TEMPLATE: ChatTemplate = {
  name: "ChatML",
  source: "fallback",
  start: "<|im_start|>system\n",
  systemToUser: "<|im_end|>\n<|im_start|>user\n",
  userToAssistant: "<|im_end|>\n<|im_start|>assistant\n",
  assistantToUser: "<|im_end|>\n<|im_start|>user\n",
  userToUser: "<|im_end|>\n<|im_start|>user\n",
  replyStart: "<|im_end|>\n<|im_start|>assistant\n",
  stops: ["<|im_end|>", "<|im_start|>", "<|endoftext|>"],
};

const S = "CLAWBOXSYSTEMTEXT";
const U1 = "CLAWBOXUSERONE";
const A1 = "CLAWBOXASSISTANTONE";
const U2 = "CLAWBOXUSERTWO";

/** Text of the special tokens a wrapper may emit, from the model's vocabulary. */
export interface SpecialTokenText {
  bos: string | null;
  eos: string | null;
  eot: string | null;
}

/** The markup `wrapper` puts around turns, read from a conversation of placeholders. */
export function deriveChatTemplate(
  wrapper: ChatWrapper,
  specials: SpecialTokenText,
  source: ChatTemplate["source"],
): ChatTemplate {
  const render = (history: ChatHistoryItem[]) => {
    const state = wrapper.generateContextState({ chatHistory: history });
    return {
      text: flattenLlamaText(state.contextText.toJSON(), specials),
      stops: state.stopGenerationTriggers.map((trigger) =>
        flattenLlamaText(trigger.toJSON(), specials),
      ),
    };
  };
  const turns = render([
    { type: "system", text: S },
    { type: "user", text: U1 },
    { type: "model", response: [A1] },
    { type: "user", text: U2 },
    { type: "model", response: [] },
  ]);
  const [
    start = "",
    systemToUser = "",
    userToAssistant = "",
    assistantToUser = "",
    replyStart = "",
  ] = splitAt(turns.text, [S, U1, A1, U2]);
  const twoUsers = render([
    { type: "system", text: S },
    { type: "user", text: U1 },
    { type: "user", text: U2 },
    { type: "model", response: [] },
  ]);
  const userToUser = splitAt(twoUsers.text, [S, U1, U2])[2] ?? "";
  return {
    name: wrapper.wrapperName,
    source,
    start,
    systemToUser,
    userToAssistant,
    assistantToUser,
    userToUser,
    replyStart,
    stops: [...new Set(turns.stops.filter((stop) => stop.trim() !== ""))],
  };
}

/**
 * The template of a loaded model: the GGUF's own (via node-llama-cpp's resolution),
 * or ChatML with the reason when the resolved wrapper cannot be read this way.
 */
export async function chatTemplateOf(model: LlamaModel): Promise<ChatTemplate> {
  const { ChatMLChatWrapper, resolveChatWrapper } = await import("node-llama-cpp");
  const jinja = model.fileInfo.metadata.tokenizer?.chat_template;
  const source = typeof jinja === "string" && jinja.trim() !== "" ? "gguf" : "model name";
  const specials = {
    bos: model.tokens.bosString,
    eos: model.tokens.eosString,
    eot: model.tokens.eotString,
  };
  try {
    return deriveChatTemplate(resolveChatWrapper(model, { warningLogs: false }), specials, source);
  } catch (error) {
    const reason = errorMessage(error);
    const fallback = deriveChatTemplate(new ChatMLChatWrapper(), specials, "fallback");
    return { ...fallback, name: `ChatML (the model's own template failed: ${reason})` };
  }
}

/**
 * The template the local provider would use for the GGUF at `path`, read by loading
 * only its vocabulary (no weights), for `doctor`. Validate the file first.
 */
export async function chatTemplateOfFile(path: string, threads: number): Promise<ChatTemplate> {
  const llama = await loadLlama(threads);
  const model = await llama.loadModel({ modelPath: path, vocabOnly: true });
  try {
    return await chatTemplateOf(model);
  } finally {
    await model.dispose();
  }
}

/** One line for `doctor` and the logs: which template, and where it came from. */
export function describeChatTemplate(template: ChatTemplate): string {
  const from =
    template.source === "gguf"
      ? "from the GGUF's chat template"
      : template.source === "model name"
        ? "guessed from the model's name and architecture; the GGUF has no chat template"
        : "fallback";
  return `${template.name} (${from})`;
}

/** A wrapper's rendered text as one string, special tokens written as their text. */
export function flattenLlamaText(json: LlamaTextJSON, specials: SpecialTokenText): string {
  if (typeof json === "string") return json;
  let text = "";
  for (const value of json) {
    if (typeof value === "string") text += value;
    else if (value.type === "specialTokensText") text += value.value;
    else if (value.value === "BOS") text += specials.bos ?? "";
    else if (value.value === "EOS") text += specials.eos ?? "";
    else if (value.value === "EOT") text += specials.eot ?? specials.eos ?? "";
    else if (value.value === "NL") text += "\n";
  }
  return text;
}

/** `text` cut at each marker in order: the pieces before, between and after them. */
function splitAt(text: string, markers: string[]): string[] {
  const parts: string[] = [];
  let rest = text;
  for (const marker of markers) {
    const at = rest.indexOf(marker);
    if (at < 0)
      throw new ClawboxError(
        "MODEL_INVALID",
        `the chat template dropped a message (${marker} missing)`,
      );
    parts.push(rest.slice(0, at));
    rest = rest.slice(at + marker.length);
  }
  parts.push(rest);
  return parts;
}
