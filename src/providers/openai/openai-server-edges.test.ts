/**
 * The OpenAI-compatible provider against fakes written from Ollama's and vLLM's source
 * and from OpenAI's, OpenRouter's and DeepSeek's docs (test/fakes/): the edges that used
 * to end a turn wrongly (issue 26, first list).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDeepSeek } from "../../../test/fakes/deepseek-server.ts";
import { ollamaInputTooLong, startFakeOllama } from "../../../test/fakes/ollama-server.ts";
import {
  openaiRefusal,
  openrouterMidStreamError,
  toolCallThenReset,
  vllmPromptTooLong,
} from "../../../test/fakes/openai-compatible-quirks.ts";
import { type ScriptedServer, startFakeOpenAI } from "../../../test/fakes/openai-server.ts";
import { type CollectedStream, collectStream } from "../../../test/support/collect-stream.ts";
import {
  hiWithReadFile,
  openaiProviderConfig,
} from "../../../test/support/openai-provider-fixture.ts";
import type { OpenAIProviderConfig } from "../../config/index.ts";
import { type AssistantMessage, emptyUsage, type Message } from "../../messages/index.ts";
import { failureMessage } from "../failure-message.ts";
import type { ProviderRequest, ThinkingLevel } from "../provider.ts";
import { OpenAIProvider } from "./openai-provider.ts";

let openai: ScriptedServer;
let ollama: ScriptedServer;
let plainOllama: ScriptedServer;
let deepseek: ScriptedServer;
beforeAll(async () => {
  [openai, ollama, plainOllama, deepseek] = await Promise.all([
    startFakeOpenAI(),
    startFakeOllama(),
    startFakeOllama({ thinking: false }),
    startFakeDeepSeek(),
  ]);
});
afterAll(async () => {
  await Promise.all([openai, ollama, plainOllama, deepseek].map((server) => server.close()));
});

function provider(server: ScriptedServer, overrides: Partial<OpenAIProviderConfig> = {}) {
  return new OpenAIProvider("edge", openaiProviderConfig(`${server.url}/v1`, overrides));
}

const request = hiWithReadFile;
const withLevel = (thinkingLevel: ThinkingLevel): ProviderRequest => ({
  ...request,
  thinkingLevel,
});

function errorOf(result: CollectedStream) {
  if (result.final.type !== "error") throw new Error(`expected an error, got ${result.final.type}`);
  return result.final.error;
}

const lastBody = (server: ScriptedServer) => server.requests.at(-1)?.body ?? {};

describe("Ollama's reasoning_effort", () => {
  it.each([
    ["minimal", "low"],
    ["low", "low"],
    ["medium", "medium"],
    ["high", "high"],
  ] as const)("sends thinking level %s as %s, which Ollama accepts", async (level, sent) => {
    const result = await collectStream(provider(ollama, { flavor: "ollama" }), withLevel(level));
    expect(result.final.type).toBe("done");
    expect(lastBody(ollama).reasoning_effort).toBe(sent);
  });

  it('sends "none" for thinking off, so a thinking model stops thinking', async () => {
    const thinking = await collectStream(provider(ollama, { flavor: "ollama" }), request);
    expect(thinking.final.message.content[0]).toMatchObject({ type: "thinking" });
    const off = await collectStream(provider(ollama, { flavor: "ollama" }), withLevel("off"));
    expect(lastBody(ollama).reasoning_effort).toBe("none");
    expect(off.final.message.content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("recognizes Ollama by its default port when the flavor is left to guess", async () => {
    // The box is configured with Ollama's usual address; the request reaches the fake.
    const viaFake = Object.assign(
      (url: string | URL | Request, init?: RequestInit) =>
        fetch(String(url).replace("http://192.168.1.40:11434", ollama.url), init),
      { preconnect: fetch.preconnect },
    );
    const guessed = new OpenAIProvider(
      "edge",
      openaiProviderConfig("http://192.168.1.40:11434/v1", { model: "qwen3:8b" }),
      { fetch: viaFake },
    );
    const result = await collectStream(guessed, withLevel("minimal"));
    expect(result.final.type).toBe("done");
    expect(lastBody(ollama).reasoning_effort).toBe("low");
  });

  it.each([
    ["a thinking model", "minimal", "invalid reasoning value: 'minimal'"],
    ["a model without thinking", "low", "does not support thinking"],
  ] as const)(
    "marks Ollama's refusal of a level as a thinking-level rejection (%s)",
    async (model, level, wording) => {
      // An Ollama the flavor guess does not recognize gets OpenAI's parameter as it is.
      const server = model === "a thinking model" ? ollama : plainOllama;
      const error = errorOf(await collectStream(provider(server), withLevel(level)));
      expect(error.message).toContain(wording);
      expect(error.details?.thinkingLevelRejected).toBe(true);
    },
  );
});

describe("context overflow wordings", () => {
  it.each([
    ["Ollama, HTTP 400", ollamaInputTooLong(400)],
    ["Ollama, HTTP 500", ollamaInputTooLong(500)],
    ["vLLM, inside the stream", vllmPromptTooLong(40000, 32768)],
    ["vLLM, HTTP 400", vllmPromptTooLong(40000, 32768, false)],
  ])("classifies %s as a context overflow", async (_name, step) => {
    openai.enqueue(step);
    expect(errorOf(await collectStream(provider(openai), request)).code).toBe("CONTEXT_OVERFLOW");
  });
});

describe("OpenAI's reasoning models", () => {
  it.each(["o3", "o4-mini", "gpt-5-mini", "openai/gpt-5"])(
    "get no configured temperature (%s accepts only the default)",
    async (model) => {
      const result = await collectStream(provider(openai, { model, temperature: 0.7 }), {
        ...request,
        temperature: 0.2,
      });
      expect(result.final.type).toBe("done");
      expect(lastBody(openai).temperature).toBeUndefined();
    },
  );

  it("other models keep their temperature", async () => {
    await collectStream(
      provider(openai, { model: "gpt-5-chat-latest", temperature: 0.7 }),
      request,
    );
    expect(lastBody(openai).temperature).toBe(0.7);
    await collectStream(provider(openai, { model: "gpt-4.1", temperature: 0.7 }), request);
    expect(lastBody(openai).temperature).toBe(0.7);
  });
});

describe("endings that are not an answer", () => {
  it("reports a streamed refusal as the model refusing, keeping its words", async () => {
    openai.enqueue(openaiRefusal("I'm sorry, I can't help with that."));
    const result = await collectStream(provider(openai), request);
    const error = errorOf(result);
    expect(error.code).toBe("PROVIDER_STOPPED");
    expect(error.details?.stopReason).toBe("refusal");
    expect(failureMessage(error)).toMatch(/declined/);
    expect(result.final.message.content).toEqual([
      { type: "text", text: "I'm sorry, I can't help with that." },
    ]);
  });

  it.each([502, "server_error"])(
    "treats OpenRouter's mid-stream error (code %s) as a transient server failure",
    async (code) => {
      openai.enqueue(
        openrouterMidStreamError("Half an ans", { code, message: "Provider disconnected" }),
      );
      const error = errorOf(await collectStream(provider(openai), request));
      expect(error.code).toBe("PROVIDER_NETWORK");
      expect(error.message).toContain("Provider disconnected");
    },
  );

  it("keeps complete tool calls when the connection resets after finish_reason", async () => {
    openai.enqueue(toolCallThenReset("read_file", '{"path":"notes.md"}'));
    const { final } = await collectStream(provider(openai), request);
    expect(final.type).toBe("done");
    expect(final.message.stopReason).toBe("toolUse");
    expect(final.message.content).toEqual([
      { type: "toolCall", id: "call_rst1", name: "read_file", arguments: { path: "notes.md" } },
    ]);
  });
});

describe("DeepSeek thinking mode", () => {
  const foreignTurn: AssistantMessage = {
    role: "assistant",
    content: [
      { type: "text", text: "Let me look." },
      { type: "toolCall", id: "toolu_1", name: "read_file", arguments: { path: "a" } },
    ],
    api: "anthropic-messages",
    provider: "claude",
    model: "claude-sonnet-4-5",
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: 0,
  };
  const history: Message[] = [
    { role: "user", content: "read a", timestamp: 0 },
    foreignTurn,
    {
      role: "toolResult",
      toolCallId: "toolu_1",
      toolName: "read_file",
      content: [{ type: "text", text: "contents" }],
      isError: false,
      timestamp: 0,
    },
  ];

  it("accepts a tool-call turn another model produced, sent with an empty reasoning_content", async () => {
    const result = await collectStream(provider(deepseek, { flavor: "deepseek" }), {
      ...request,
      messages: history,
      thinkingLevel: "high",
    });
    expect(result.final.type).toBe("done");
    const sent = lastBody(deepseek).messages as Record<string, unknown>[];
    expect(sent[2]).toMatchObject({ role: "assistant", reasoning_content: "" });
  });
});
