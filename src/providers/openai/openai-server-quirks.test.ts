import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  contentFiltered,
  dashscopeOverflow,
  fragmentedToolName,
  lengthCutToolCall,
  llamaServerStreamError,
  minimaxOkError,
  openaiOverloaded,
  reasoningThenText,
  reasoningThenToolCall,
  repeatedToolName,
} from "../../../test/fakes/openai-compatible-quirks.ts";
import {
  openaiText,
  type ScriptedServer,
  startFakeOpenAI,
} from "../../../test/fakes/openai-server.ts";
import { type CollectedStream, collectStream } from "../../../test/support/collect-stream.ts";
import {
  hiWithReadFile,
  openaiProviderConfig,
} from "../../../test/support/openai-provider-fixture.ts";
import type { OpenAIProviderConfig } from "../../config/index.ts";
import type { AssistantMessage } from "../../messages/index.ts";
import { failureMessage } from "../failure-message.ts";
import type { ProviderRequest } from "../provider.ts";
import { OpenAIProvider } from "./openai-provider.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());

function config(overrides: Partial<OpenAIProviderConfig> = {}): OpenAIProviderConfig {
  return openaiProviderConfig(`${server.url}/v1`, overrides);
}

const request = hiWithReadFile;

function run(overrides: Partial<OpenAIProviderConfig> = {}, req = request, sleeps: number[] = []) {
  const provider = new OpenAIProvider("oa", config(overrides), {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return collectStream(provider, req);
}

function errorCode(result: CollectedStream): string | false {
  return result.final.type === "error" && result.final.error.code;
}

const lastBody = () => server.requests.at(-1)?.body ?? {};

describe("OpenAI-compatible provider against real servers' quirks", () => {
  it("assigns a tool name a server resends whole in every chunk (NIM, Fireworks)", async () => {
    server.enqueue(repeatedToolName("read_file", '{"path":"notes.md"}'));
    const { final } = await run();
    expect(final.type).toBe("done");
    expect(final.message.content).toEqual([
      { type: "toolCall", id: "call_nim1", name: "read_file", arguments: { path: "notes.md" } },
    ]);
  });

  it("still appends true name fragments (the reference stream)", async () => {
    server.enqueue(fragmentedToolName(["read_", "file"], '{"path":"a"}'));
    const { final } = await run();
    expect(final.message.content).toMatchObject([{ type: "toolCall", name: "read_file" }]);
  });

  it("reports a tool call cut by the token limit as a length stop with a truncated call", async () => {
    server.enqueue(lengthCutToolCall("read_file", '{"path":"very/long/na', "Let me look."));
    const { final } = await run();
    expect(final.type).toBe("done");
    expect(final.message.stopReason).toBe("length");
    expect(final.message.content).toEqual([
      { type: "text", text: "Let me look." },
      { type: "toolCall", id: "call_cut1", name: "read_file", arguments: {}, truncated: true },
    ]);
  });

  it("surfaces llama-server's `error:` line as a context overflow, not an empty reply", async () => {
    server.enqueue(
      llamaServerStreamError("the request exceeds the available context size, try increasing it"),
    );
    const result = await run();
    expect(errorCode(result)).toBe("CONTEXT_OVERFLOW");
    expect(result.final.message.stopReason).toBe("error");
  });

  it("recognizes DashScope's overflow wording", async () => {
    server.enqueue(dashscopeOverflow());
    expect(errorCode(await run())).toBe("CONTEXT_OVERFLOW");
  });

  it("retries an overloaded service with the same key, honouring retry-after-ms", async () => {
    const sleeps: number[] = [];
    const before = server.requests.length;
    server.enqueue(
      openaiOverloaded({ "retry-after-ms": "1500" }),
      openaiOverloaded(),
      openaiText("fine"),
    );
    const provider = new OpenAIProvider(
      "oa",
      config({
        authProfiles: [
          { id: "first", apiKey: "key-one-000000" },
          { id: "second", apiKey: "key-two-000000" },
        ],
      }),
      { sleep: async (ms) => void sleeps.push(ms) },
    );
    const { final } = await collectStream(provider, request);
    expect(final.type).toBe("done");
    const auths = server.requests.slice(before).map((r) => r.headers.authorization);
    expect(auths).toEqual(Array(3).fill("Bearer key-one-000000"));
    expect(sleeps[0]).toBe(1500);
    expect(sleeps[1]).toBeGreaterThanOrEqual(6000);
    expect(provider.stats().authProfiles).toEqual([{ id: "first" }, { id: "second" }]);
  });

  it("gives up on an overloaded service after the configured retries, in plain words", async () => {
    const sleeps: number[] = [];
    server.enqueue(openaiOverloaded(), openaiOverloaded());
    const result = await run({ overloadRetries: 1 }, request, sleeps);
    expect(errorCode(result)).toBe("PROVIDER_OVERLOADED");
    expect(sleeps).toHaveLength(1);
    if (result.final.type === "error") {
      expect(failureMessage(result.final.error)).toMatch(/overloaded/);
    }
  });

  it("rotates past a key MiniMax rejects with HTTP 200 and base_resp", async () => {
    const before = server.requests.length;
    server.enqueue(minimaxOkError(1004, "login fail: Please carefully check the authorization"));
    server.enqueue(openaiText("hello"));
    const provider = new OpenAIProvider(
      "oa",
      config({
        authProfiles: [
          { id: "bad", apiKey: "key-bad-000000" },
          { id: "good", apiKey: "key-good-00000" },
        ],
      }),
    );
    const { final } = await collectStream(provider, request);
    expect(final.type).toBe("done");
    expect(server.requests.slice(before).map((r) => r.headers.authorization)).toEqual([
      "Bearer key-bad-000000",
      "Bearer key-good-00000",
    ]);
    expect(provider.stats().authProfiles?.[0]?.coolingDownUntil).toBeGreaterThan(Date.now());
  });

  it("classifies MiniMax's insufficient balance as billing", async () => {
    server.enqueue(minimaxOkError(1008, "insufficient balance"));
    expect(errorCode(await run())).toBe("PROVIDER_BILLING");
  });

  it("reports a content-filter stop distinctly, keeping the partial text", async () => {
    server.enqueue(contentFiltered("I can tell you that"));
    const result = await run();
    expect(errorCode(result)).toBe("PROVIDER_STOPPED");
    expect(result.final.message.content).toEqual([{ type: "text", text: "I can tell you that" }]);
    if (result.final.type === "error") {
      expect(result.final.error.details?.stopReason).toBe("content_filter");
      expect(failureMessage(result.final.error)).toMatch(/content filter/);
    }
  });

  it.each(["reasoning", "reasoning_content"] as const)(
    "reads reasoning text sent as delta.%s",
    async (field) => {
      server.enqueue(reasoningThenText(field, "thinking hard", "42"));
      const { final } = await run();
      expect(final.message.content).toEqual([
        { type: "thinking", thinking: "thinking hard" },
        { type: "text", text: "42" },
      ]);
    },
  );

  it("sends max_completion_tokens to OpenAI's reasoning models and where configured", async () => {
    await run({ model: "gpt-5-mini" });
    expect(lastBody().max_completion_tokens).toBe(256);
    expect(lastBody().max_tokens).toBeUndefined();
    await run({ model: "o3" });
    expect(lastBody().max_completion_tokens).toBe(256);
    await run({ maxTokensField: "max_completion_tokens" });
    expect(lastBody().max_completion_tokens).toBe(256);
    await run();
    expect(lastBody().max_tokens).toBe(256);
    expect(lastBody().max_completion_tokens).toBeUndefined();
  });

  it("maps thinking levels onto each flavor's parameter", async () => {
    const withLevel = (level: ProviderRequest["thinkingLevel"]) => ({
      ...request,
      thinkingLevel: level,
    });
    await run({ flavor: "openai" }, withLevel("high"));
    expect(lastBody().reasoning_effort).toBe("high");
    await run({ flavor: "openai" }, withLevel("off"));
    expect(lastBody().reasoning_effort).toBeUndefined();
    await run({ flavor: "qwen" }, withLevel("low"));
    expect(lastBody()).toMatchObject({ enable_thinking: true, thinking_budget: 2048 });
    await run({ flavor: "qwen" }, withLevel("off"));
    expect(lastBody().enable_thinking).toBe(false);
    await run({ flavor: "deepseek" }, withLevel("high"));
    expect(lastBody()).toMatchObject({ thinking: { type: "enabled" }, reasoning_effort: "high" });
    await run({ flavor: "llama-server" }, withLevel("off"));
    expect(lastBody().chat_template_kwargs).toEqual({ enable_thinking: false });
  });

  it("sends DeepSeek's reasoning_content back for a tool-calling turn", async () => {
    server.enqueue(reasoningThenToolCall("need the file", "read_file", '{"path":"a"}'));
    const first = await run({ flavor: "deepseek" });
    const assistant = first.final.message as AssistantMessage;
    const followUp: ProviderRequest = {
      ...request,
      messages: [
        ...request.messages,
        assistant,
        {
          role: "toolResult",
          toolCallId: "call_ds1",
          toolName: "read_file",
          content: [{ type: "text", text: "contents" }],
          isError: false,
          timestamp: 0,
        },
      ],
    };
    await run({ flavor: "deepseek" }, followUp);
    const sent = lastBody().messages as Record<string, unknown>[];
    expect(sent[2]).toMatchObject({ role: "assistant", reasoning_content: "need the file" });
    await run({ flavor: "openai" }, followUp);
    const plain = lastBody().messages as Record<string, unknown>[];
    expect(plain[2]?.reasoning_content).toBeUndefined();
  });
});
