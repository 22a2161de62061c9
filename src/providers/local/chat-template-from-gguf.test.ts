/**
 * A local model is prompted with the chat template its own GGUF carries: fixture models
 * with Meta's Llama 3 and Google's Gemma templates are rendered, piece by piece, exactly
 * as node-llama-cpp's resolved wrapper renders the same conversation as a whole; the
 * markup's special tokens stay single tokens; turns reuse the KV cache; and `doctor`
 * names the template.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatHistoryItem, LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GEMMA_TEMPLATE,
  GEMMA_TOKENS,
  LLAMA3_TEMPLATE,
  LLAMA3_TOKENS,
  writeTinyGguf,
} from "../../../test/fixtures/tiny-gguf.ts";
import { collectStream } from "../../../test/support/collect-stream.ts";
import { runCli } from "../../../test/support/run-cli.ts";
import type { AssistantMessage, Message } from "../../messages/index.ts";
import type { ChatTemplate, ProviderRequest } from "../provider.ts";
import { renderPrompt } from "./chat-prompt.ts";
import { chatTemplateOf, flattenLlamaText } from "./chat-template.ts";
import { loadLlama } from "./llama-runtime.ts";
import { LocalProvider } from "./local-provider.ts";

let dir: string;
const paths = { llama3: "", gemma: "" };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "clawbox-template-"));
  paths.llama3 = join(dir, "tiny-llama3.gguf");
  paths.gemma = join(dir, "tiny-gemma.gguf");
  await writeTinyGguf(paths.llama3, {
    chatTemplate: LLAMA3_TEMPLATE,
    specialTokens: LLAMA3_TOKENS,
    contextLength: 1024,
  });
  await writeTinyGguf(paths.gemma, {
    chatTemplate: GEMMA_TEMPLATE,
    specialTokens: GEMMA_TOKENS,
    contextLength: 1024,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withModel<T>(path: string, use: (model: LlamaModel) => Promise<T>): Promise<T> {
  const llama = await loadLlama(1);
  const model = await llama.loadModel({ modelPath: path, vocabOnly: true });
  try {
    return await use(model);
  } finally {
    await model.dispose();
  }
}

const answer = (text: string, timestamp: number): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "local",
  model: "tiny",
  usage: {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp,
});

const conversation: Message[] = [
  { role: "user", content: "Is the kitchen light on?", timestamp: 1 },
  answer("Yes, it is on.", 2),
  { role: "user", content: "Turn it off please.", timestamp: 3 },
];

const request: ProviderRequest = {
  systemPrompt: "You are a home assistant.",
  messages: conversation,
  tools: [],
};

/** The same conversation as node-llama-cpp's wrapper renders it in one go. */
async function wrapperRender(model: LlamaModel) {
  const { resolveChatWrapper } = await import("node-llama-cpp");
  const history: ChatHistoryItem[] = [
    { type: "system", text: "You are a home assistant." },
    { type: "user", text: "Is the kitchen light on?" },
    { type: "model", response: ["Yes, it is on."] },
    { type: "user", text: "Turn it off please." },
    { type: "model", response: [] },
  ];
  const state = resolveChatWrapper(model, { warningLogs: false }).generateContextState({
    chatHistory: history,
  });
  const specials = {
    bos: model.tokens.bosString,
    eos: model.tokens.eosString,
    eot: model.tokens.eotString,
  };
  return {
    text: flattenLlamaText(state.contextText.toJSON(), specials),
    tokens: state.contextText.tokenize(model.tokenizer),
  };
}

/** The prompt as the local provider renders it: the text, and its tokens piece by piece. */
function providerRender(model: LlamaModel, template: ChatTemplate) {
  const pieces = renderPrompt(request, false, template);
  return {
    text: pieces.map((piece) => piece.text).join(""),
    tokens: pieces.flatMap((piece, index) =>
      model.tokenize(
        piece.text,
        piece.kind === "markup",
        index === 0 ? undefined : "trimLeadingSpace",
      ),
    ),
  };
}

describe("chat template from the GGUF", () => {
  it("a Llama 3 GGUF is prompted with Llama 3 markup, exactly as node-llama-cpp renders it", async () => {
    await withModel(paths.llama3, async (model) => {
      const template = await chatTemplateOf(model);
      expect(template).toMatchObject({ name: "Llama 3", source: "gguf" });
      expect(template.replyStart).toContain("<|start_header_id|>assistant<|end_header_id|>");
      const ours = providerRender(model, template);
      const theirs = await wrapperRender(model);
      expect(ours.text).toBe(theirs.text);
      expect(ours.tokens).toEqual(theirs.tokens);
      // The markup's special tokens are parsed as one control token each.
      const eot = model.tokenize("<|eot_id|>", true);
      expect(eot).toHaveLength(1);
      expect(model.tokenize(template.assistantToUser, true)).toContain(eot[0]);
    });
  });

  it("a Gemma GGUF is prompted with Gemma markup (system folded into the first user turn)", async () => {
    await withModel(paths.gemma, async (model) => {
      const template = await chatTemplateOf(model);
      expect(template).toMatchObject({ name: "Gemma", source: "gguf" });
      expect(template.start).toContain("<start_of_turn>user\n");
      expect(template.stops).toContain("<end_of_turn>");
      // Same text; tokens may differ by a space where Gemma's plain-text separator
      // meets a separately tokenized piece.
      expect(providerRender(model, template).text).toBe((await wrapperRender(model)).text);
    });
  });

  it("turns on a Llama 3 GGUF reuse the KV cache and stop at the template's end of turn", async () => {
    const provider = new LocalProvider("tiny", {
      kind: "local",
      path: paths.llama3,
      threads: 1,
      temperature: 0,
      maxTokens: 6,
      seed: 1,
    });
    try {
      expect((await provider.chatTemplate())?.name).toBe("Llama 3");
      const first = await collectStream(provider, { ...request, sessionId: "s" });
      expect(first.final.type).toBe("done");
      // The whole first prompt was evaluated: exactly the tokens of the wrapper's rendering.
      const expected = await withModel(paths.llama3, async (model) => wrapperRender(model));
      expect(first.final.message.usage.input).toBe(expected.tokens.length);
      const reply = first.final.message;
      const second = await collectStream(provider, {
        ...request,
        sessionId: "s",
        messages: [...conversation, reply, { role: "user", content: "Thanks.", timestamp: 9 }],
      });
      expect(second.final.type).toBe("done");
      expect(second.final.message.usage.cacheRead).toBeGreaterThan(first.final.message.usage.input);
    } finally {
      await provider.dispose();
    }
  });

  it("doctor shows the chat template of the configured model", async () => {
    const home = join(dir, "home");
    const run = await runCli(["--home", home, "doctor"], {
      CLAWBOX_MODEL_PATH: paths.gemma,
    });
    expect(run.stdout + run.stderr).toMatch(
      /chat template: Gemma \(from the GGUF's chat template\)/,
    );
  });
});
