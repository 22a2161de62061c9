import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, ownerRequest } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";

const root = join(import.meta.dirname, "..", "..");
const bun = process.execPath;
const fake = (name: string) => join(root, "test", "fakes", name);

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const request = ownerRequest;

describe("MCP tools", () => {
  it("calls a stdio MCP server's tool, while a silent server neither blocks startup nor the turn", async () => {
    const provider = createFakeProvider({
      script: [
        { toolCalls: [{ name: "mcp__home__light_set", arguments: { name: "kitchen", on: true } }] },
        { toolCalls: [{ name: "mcp__home__light_state", arguments: { name: "kitchen" } }] },
        { text: "The kitchen light is on." },
      ],
    });
    harness = createHarness({
      providers: { fake: provider },
      config: {
        tools: {
          mcp: {
            connectTimeoutMs: 8000,
            callTimeoutMs: 5000,
            servers: {
              home: { transport: "stdio", command: bun, args: [fake("mcp-home-server.ts")] },
              dead: {
                transport: "stdio",
                command: bun,
                args: [fake("mcp-hanging-server.ts"), "silent"],
              },
            },
          },
        },
      },
    });
    await harness.agent.ready();
    const status = Object.fromEntries(harness.agent.mcpStatus().map((s) => [s.name, s.state]));
    expect(status.home).toBe("ready");
    expect(status.dead).not.toBe("ready");

    const result = await harness.agent.chat(request("turn on the kitchen light"));
    expect(result.error).toBeUndefined();
    expect(result.reply).toBe("The kitchen light is on.");
    expect(provider.requests[0]?.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["mcp__home__light_set", "mcp__home__light_state"]),
    );
    const results = harness.messages(result.sessionKey).filter((m) => m.role === "toolResult");
    expect(results.map((m) => (m.role === "toolResult" ? m.content[0] : undefined))).toEqual([
      { type: "text", text: "kitchen is now on" },
      { type: "text", text: "kitchen: on" },
    ]);
  }, 40000);

  it("a server that never answers a call costs one error result, not a stalled turn", async () => {
    const provider = createFakeProvider({
      script: [
        { toolCalls: [{ name: "mcp__slow__wait_forever", arguments: {} }] },
        { text: "That device did not answer." },
      ],
    });
    harness = createHarness({
      providers: { fake: provider },
      config: {
        tools: {
          mcp: {
            connectTimeoutMs: 20000,
            callTimeoutMs: 500,
            servers: {
              slow: {
                transport: "stdio",
                command: bun,
                args: [fake("mcp-hanging-server.ts"), "calls"],
              },
            },
          },
        },
      },
    });
    await harness.agent.ready();
    expect(harness.agent.toolNames()).toContain("mcp__slow__wait_forever");
    const result = await harness.agent.chat(request("wait"));
    expect(result.reply).toBe("That device did not answer.");
    const toolResult = harness.messages(result.sessionKey).find((m) => m.role === "toolResult");
    expect(toolResult?.role === "toolResult" && toolResult.isError).toBe(true);
    expect(JSON.stringify(toolResult)).toMatch(/timed out/);
  }, 40000);

  it("MCP tools pass the policy: a deny pattern removes them", async () => {
    const provider = createFakeProvider({ script: [{ text: "ok" }] });
    harness = createHarness({
      providers: { fake: provider },
      config: {
        tools: {
          deny: ["mcp__home__*"],
          mcp: {
            connectTimeoutMs: 20000,
            servers: {
              home: { transport: "stdio", command: bun, args: [fake("mcp-home-server.ts")] },
            },
          },
        },
      },
    });
    await harness.agent.ready();
    expect(harness.agent.toolNames()).toContain("mcp__home__light_set");
    await harness.agent.chat(request("hi"));
    expect(
      provider.requests[0]?.tools.map((t) => t.name).filter((n) => n.startsWith("mcp__")),
    ).toEqual([]);
  }, 40000);
});
