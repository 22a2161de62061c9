/**
 * The agent against fake OpenAI and Anthropic servers on loopback speaking real SSE,
 * with faults injected. Providers are built from config by the providers area (auth
 * profiles, classification); nothing crashes and every case ends with a stored,
 * repaired transcript.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  anthropicOverflow,
  anthropicReply,
  anthropicStatus,
  startFakeAnthropic,
} from "../fakes/anthropic-server.ts";
import {
  openaiOverflow,
  openaiStatus,
  openaiText,
  openaiToolCall,
  startFakeOpenAI,
} from "../fakes/openai-server.ts";
import type { ScriptedServer, Step } from "../fakes/scripted-sse-server.ts";
import type { TestContextEngine } from "../fakes/test-context-engine.ts";
import { createHarness, expectRepaired, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
let server: ScriptedServer | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  harness = undefined;
  server = undefined;
});

interface Api {
  kind: "openai" | "anthropic";
  start(): Promise<ScriptedServer>;
  text(text: string, dropAfter?: number): Step;
  toolCall(name: string, raw: string): Step;
  status(status: number, message: string, type?: string): Step;
  overflow(): Step;
}

const apis: Api[] = [
  {
    kind: "openai",
    start: startFakeOpenAI,
    text: (text, dropAfter) => openaiText(text, dropAfter === undefined ? {} : { dropAfter }),
    toolCall: (name, raw) => openaiToolCall(name, raw),
    status: (status, message, type) => openaiStatus(status, message, type ? { type } : {}),
    overflow: openaiOverflow,
  },
  {
    kind: "anthropic",
    start: startFakeAnthropic,
    text: (text, dropAfter) =>
      anthropicReply([{ type: "text", text }], dropAfter === undefined ? {} : { dropAfter }),
    toolCall: (name, raw) =>
      anthropicReply([{ type: "tool_use", id: "toolu_1", name, rawInput: raw }], {
        stopReason: "tool_use",
      }),
    status: (status, message, type) => anthropicStatus(status, type ?? "api_error", message),
    overflow: anthropicOverflow,
  },
];

async function setup(
  api: Api,
  keys = ["key-one", "key-two"],
): Promise<{ harness: Harness; server: ScriptedServer }> {
  server = await api.start();
  harness = createHarness({
    config: {
      models: {
        primary: "cloud",
        fallbacks: [],
        providers: {
          cloud: {
            kind: api.kind,
            baseUrl: server.url,
            model: "m",
            timeoutMs: 1000,
            authProfiles: keys.map((apiKey, i) => ({ id: `p${i}`, apiKey })),
          },
        },
      },
    },
  });
  return { harness, server };
}

const request = ownerRequest;

for (const api of apis) {
  describe(`agent over a fake ${api.kind} server`, () => {
    it("429 then success (rotation to the next key)", async () => {
      const { harness, server } = await setup(api);
      server.onKey("key-one", api.status(429, "rate limit exceeded", "rate_limit_error"));
      server.enqueue(api.text("hello after rotation"));
      const result = await harness.agent.chat(request("hi"));
      expect(result.error).toBeUndefined();
      expect(result.reply).toBe("hello after rotation");
      expectRepaired(harness.messages(result.sessionKey));
    });

    it("401 on the first key, then the second key works", async () => {
      const { harness, server } = await setup(api);
      server.onKey("key-one", api.status(401, "invalid api key", "authentication_error"));
      server.enqueue(api.text("second key ok"));
      const result = await harness.agent.chat(request("hi"));
      expect(result.reply).toBe("second key ok");
      expectRepaired(harness.messages(result.sessionKey));
    });

    it("500 ends with a plain message and a stored error message", async () => {
      const { harness, server } = await setup(api, ["only-key"]);
      for (let i = 0; i < 5; i++) server.enqueue(api.status(500, "internal server error"));
      const result = await harness.agent.chat(request("hi"));
      expect(result.error).toBeDefined();
      expect(result.reply).not.toMatch(/internal server error/);
      const messages = harness.messages(result.sessionKey);
      expectRepaired(messages);
      const last = messages.at(-1);
      expect(last?.role === "assistant" && last.stopReason).toBe("error");
    });

    it("overflow → compaction → success", async () => {
      const { harness, server } = await setup(api);
      server.enqueue(api.overflow(), api.text("fits now"));
      const result = await harness.agent.chat(request("a long message"));
      expect(result.reply).toBe("fits now");
      expect((harness.engine as TestContextEngine).compactions.map((c) => c.reason)).toEqual([
        "overflow",
      ]);
      expectRepaired(harness.messages(result.sessionKey));
    });

    it("a hang times out and is reported in plain words", async () => {
      const { harness, server } = await setup(api, ["only-key"]);
      for (let i = 0; i < 4; i++) server.enqueue({ kind: "hang" });
      const result = await harness.agent.chat(request("hi"));
      expect(result.error?.code).toBe("PROVIDER_TIMEOUT");
      expect(result.reply).toMatch(/too long to answer/);
      expectRepaired(harness.messages(result.sessionKey));
    }, 20000);

    it("a connection dropped mid-stream ends with a stored, repaired transcript", async () => {
      const { harness, server } = await setup(api, ["only-key"]);
      for (let i = 0; i < 4; i++)
        server.enqueue(api.text("this answer will be cut off in the middle", 4));
      const result = await harness.agent.chat(request("hi"));
      expect(result.error).toBeDefined();
      expectRepaired(harness.messages(result.sessionKey));
    });

    it("malformed JSON in a tool call never crashes the run", async () => {
      const { harness, server } = await setup(api, ["only-key"]);
      server.enqueue(
        api.toolCall("read", '{"path": "notes.txt'),
        api.text("recovered"),
        api.text("recovered"),
      );
      const result = await harness.agent.chat(request("read my notes"));
      const messages = harness.messages(result.sessionKey);
      expectRepaired(messages);
      if (!result.error) expect(result.reply).toBe("recovered");
    });
  });
}
