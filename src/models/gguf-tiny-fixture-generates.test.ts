import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getLlama, type Llama, LlamaChatSession, LlamaCompletion } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyGguf } from "../../test/fixtures/tiny-gguf.ts";
import { validateModelFile } from "./index.ts";

let dir = "";
let path = "";
let llama: Llama | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "clawbox-tiny-llama-"));
  path = join(dir, "tiny.gguf");
  await writeTinyGguf(path, { contextLength: 256 });
  await validateModelFile(path);
  llama = await getLlama({ gpu: false, build: "never", maxThreads: 1 });
});
afterAll(async () => {
  await llama?.dispose();
  await rm(dir, { recursive: true, force: true });
});

async function loadTiny() {
  if (!llama) throw new Error("llama.cpp did not start");
  const model = await llama.loadModel({ modelPath: path });
  const context = await model.createContext({ contextSize: 256, threads: 1 });
  return { model, context };
}

describe("tiny GGUF fixture in node-llama-cpp", () => {
  it("loads and generates the requested number of tokens of valid text", async () => {
    const { model, context } = await loadTiny();
    expect(model.trainContextSize).toBe(256);
    const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
    const generated: number[] = [];
    const text = await completion.generateCompletion("Once upon a time", {
      maxTokens: 12,
      temperature: 0,
      onToken: (tokens) => generated.push(...tokens.map(Number)),
    });
    expect(generated).toHaveLength(12);
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain("\uFFFD");
    expect(model.detokenize(model.tokenize("hello there"))).toBe("hello there");
    await context.dispose();
    await model.dispose();
  });

  it("is picked up as ChatML by a chat session, which answers", async () => {
    const { model, context } = await loadTiny();
    const session = new LlamaChatSession({ contextSequence: context.getSequence() });
    expect(session.chatWrapper.wrapperName).toBe("ChatML");
    const answer = await session.prompt("hello", { maxTokens: 6, temperature: 0 });
    expect(answer.length).toBeGreaterThan(0);
    await context.dispose();
    await model.dispose();
  });
});
