import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/index.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { createHarness, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const request = ownerRequest;

describe("agent loop", () => {
  it("runs model → tool → model, streams events and stores every message with usage", async () => {
    const fake = createFakeProvider({
      script: [
        {
          text: "Let me look.",
          toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
          usage: { input: 100, output: 10 },
        },
        {
          text: "<think>secret plan</think>The note says: buy milk.",
          usage: { input: 150, output: 12, cacheRead: 90 },
        },
      ],
    });
    harness = createHarness({ providers: { fake } });
    writeFileSync(join(harness.paths.workspace, "notes.txt"), "buy milk\n");
    const events: AgentEvent[] = [];
    const result = await harness.agent.chat({
      ...request("what is in notes.txt?"),
      onEvent: (e) => events.push(e),
    });

    expect(result.error).toBeUndefined();
    expect(result.reply).toBe("The note says: buy milk.");
    expect(result.silent).toBe(false);
    const messages = harness.messages(result.sessionKey);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const toolResult = messages[2];
    expect(toolResult?.role === "toolResult" && toolResult.content[0]).toEqual({
      type: "text",
      text: "buy milk\n",
    });
    const last = messages[3];
    expect(last?.role === "assistant" && last.usage).toMatchObject({
      input: 150,
      output: 12,
      cacheRead: 90,
    });

    const types = events.map((e) => e.type);
    expect(types[0]).toBe("agent_start");
    expect(types.at(-1)).toBe("agent_end");
    expect(types.filter((t) => t === "turn_start")).toHaveLength(2);
    expect(types).toContain("tool_execution_start");
    expect(types).toContain("tool_execution_end");
    const streamed = events
      .flatMap((e) =>
        e.type === "message_update" && e.event.type === "text_delta" ? [e.delta] : [],
      )
      .join("");
    expect(streamed).toBe("Let me look.The note says: buy milk.");
    expect(streamed).not.toContain("secret plan");
    // the model saw the tool definitions and the tool result on its second call
    expect(fake.requests[0]?.tools.map((t) => t.name)).toContain("read");
    expect(fake.requests[1]?.messages.at(-1)?.role).toBe("toolResult");
    const session = harness.store.sessions.byKey(result.sessionKey);
    expect(session).toMatchObject({
      lastChannel: "cli",
      lastTo: "cli",
      model: "fake/fake-model",
      chatType: "direct",
    });
  });

  it("stores the user message before the model is called", async () => {
    let seen: string[] = [];
    const fake = createFakeProvider({
      script: () => {
        seen = harness?.messages("agent:main:cli:direct:owner").map((m) => m.role) ?? [];
        return { text: "ok" };
      },
    });
    harness = createHarness({ providers: { fake } });
    await harness.agent.chat(request("hello"));
    expect(seen).toEqual(["user"]);
  });

  it("recognizes NO_REPLY and HEARTBEAT_OK as silent and never streams them", async () => {
    const fake = createFakeProvider({
      script: [{ text: "NO_REPLY" }, { text: "HEARTBEAT_OK all quiet" }],
    });
    harness = createHarness({ providers: { fake } });
    const deltas: string[] = [];
    const onEvent = (e: AgentEvent) => {
      if (e.type === "message_update") deltas.push(e.delta);
    };
    const first = await harness.agent.chat({ ...request("hi"), onEvent });
    const second = await harness.agent.chat({ ...request("heartbeat"), onEvent });
    expect(first).toMatchObject({ silent: true, reply: "" });
    expect(second).toMatchObject({ silent: true, reply: "" });
    expect(deltas.join("")).toBe("");
  });

  it("survives an onEvent consumer that throws", async () => {
    const fake = createFakeProvider({ script: [{ text: "still here" }] });
    harness = createHarness({ providers: { fake } });
    const result = await harness.agent.chat({
      ...request("hi"),
      onEvent: () => {
        throw new Error("consumer bug");
      },
    });
    expect(result.reply).toBe("still here");
  });
});
