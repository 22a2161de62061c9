/**
 * The agent over fakes of Ollama, vLLM and OpenRouter (written from their source and
 * docs) recovers the turns issue 26 found broken: a thinking level Ollama refuses is
 * stepped down, their overflow wordings compact and retry, and OpenRouter's mid-stream
 * 502 falls back to the next model.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ollamaInputTooLong, startFakeOllama } from "../fakes/ollama-server.ts";
import { openrouterMidStreamError, vllmPromptTooLong } from "../fakes/openai-compatible-quirks.ts";
import { openaiText, startFakeOpenAI } from "../fakes/openai-server.ts";
import type { ScriptedServer, Step } from "../fakes/scripted-sse-server.ts";
import type { TestContextEngine } from "../fakes/test-context-engine.ts";
import { createHarness, expectRepaired, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function started(start: () => Promise<ScriptedServer>): Promise<ScriptedServer> {
  const server = await start();
  servers.push(server);
  return server;
}

function remote(server: ScriptedServer, extra: Record<string, unknown> = {}) {
  return {
    kind: "openai",
    baseUrl: `${server.url}/v1`,
    model: "m",
    timeoutMs: 2000,
    authProfiles: [{ id: "p0", apiKey: "key-one" }],
    ...extra,
  };
}

function agentOver(
  providers: Record<string, Record<string, unknown>>,
  options: { fallbacks?: string[]; thinkingLevel?: string } = {},
): Harness {
  harness = createHarness({
    config: {
      models: { primary: "primary", fallbacks: options.fallbacks ?? [], providers },
      ...(options.thinkingLevel ? { agent: { thinkingLevel: options.thinkingLevel } } : {}),
    },
  });
  return harness;
}

const efforts = (server: ScriptedServer) => server.requests.map((r) => r.body.reasoning_effort);

describe("a thinking level Ollama refuses", () => {
  it("is stepped down when the flavor guess does not know it is Ollama", async () => {
    const ollama = await started(startFakeOllama);
    const agent = agentOver({ primary: remote(ollama) }, { thinkingLevel: "minimal" });
    const result = await agent.agent.chat(ownerRequest("hi"));
    expect(result.error).toBeUndefined();
    expect(result.reply).toBe("ok");
    expect(efforts(ollama)).toEqual(["minimal", undefined]);
  });

  it("is stepped down to none for an Ollama model that cannot think", async () => {
    const ollama = await started(() => startFakeOllama({ thinking: false }));
    const agent = agentOver(
      { primary: remote(ollama, { flavor: "ollama" }) },
      { thinkingLevel: "low" },
    );
    const result = await agent.agent.chat(ownerRequest("hi"));
    expect(result.reply).toBe("ok");
    expect(efforts(ollama)).toEqual(["low", "low", "none"]);
  });

  it("is never sent to a known Ollama: minimal goes as low, in one request", async () => {
    const ollama = await started(startFakeOllama);
    const agent = agentOver(
      { primary: remote(ollama, { flavor: "ollama" }) },
      { thinkingLevel: "minimal" },
    );
    const result = await agent.agent.chat(ownerRequest("hi"));
    expect(result.reply).toBe("ok");
    expect(efforts(ollama)).toEqual(["low"]);
  });
});

describe("overflow wordings of Ollama and vLLM", () => {
  it.each<[string, Step]>([
    ["Ollama, HTTP 400", ollamaInputTooLong(400)],
    ["Ollama, HTTP 500", ollamaInputTooLong(500)],
    ["vLLM, inside the stream", vllmPromptTooLong(40000, 32768)],
  ])("%s: the session is compacted and the turn retried", async (_name, overflow) => {
    const server = await started(startFakeOpenAI);
    server.enqueue(overflow, openaiText("fits now"));
    const agent = agentOver({ primary: remote(server) });
    const result = await agent.agent.chat(ownerRequest("a long message"));
    expect(result.reply).toBe("fits now");
    expect((agent.engine as TestContextEngine).compactions.map((c) => c.reason)).toEqual([
      "overflow",
    ]);
    expectRepaired(agent.messages(result.sessionKey));
  });
});

describe("OpenRouter's mid-stream error 502", () => {
  it("falls back to the next model", async () => {
    const openrouter = await started(startFakeOpenAI);
    const backup = await started(startFakeOpenAI);
    openrouter.enqueue(openrouterMidStreamError("The answer i"));
    backup.enqueue(openaiText("answer from the fallback"));
    const agent = agentOver(
      { primary: remote(openrouter), backup: remote(backup) },
      { fallbacks: ["backup"] },
    );
    const result = await agent.agent.chat(ownerRequest("hi"));
    expect(result.error).toBeUndefined();
    expect(result.reply).toBe("answer from the fallback");
    expect(backup.requests).toHaveLength(1);
    expectRepaired(agent.messages(result.sessionKey));
  });
});
