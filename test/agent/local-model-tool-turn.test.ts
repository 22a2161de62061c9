/**
 * A tool-calling turn end to end on real llama.cpp: the project's tiny random-weights
 * GGUF (grammar-constrained, so even random weights produce a valid call) and
 * stories260K. Real SQLite and tool execution; the test engine's short system prompt
 * (the real engine's prompt alone outgrows stories260K's 512-token window, and on such
 * a window it rightly cuts tool schemas for history).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeTinyGguf } from "../fixtures/tiny-gguf.ts";
import { createHarness, expectRepaired, type Harness } from "./agent-harness.ts";

const STORIES = join(import.meta.dirname, "../../../shared/models/stories260K.gguf");
const hasStories = existsSync(STORIES);
if (!hasStories) console.warn(`skipping the stories260K agent turn: ${STORIES} is absent`);

let dir: string;
let tinyPath: string;
let harness: Harness | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "clawbox-local-agent-"));
  tinyPath = join(dir, "tiny.gguf");
  await writeTinyGguf(tinyPath, { contextLength: 4096 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function localHarness(path: string): Harness {
  return createHarness({
    config: {
      models: {
        primary: "local",
        fallbacks: [],
        providers: { local: { kind: "local", path, threads: 1, temperature: 0, maxTokens: 200 } },
      },
      // one tool keeps the grammar small; the last call is offered no tools so the run ends in words
      tools: { profile: "minimal" },
      agent: { maxIterations: 2 },
    },
  });
}

async function toolTurn(path: string) {
  harness = localHarness(path);
  const result = await harness.agent.chat({
    sessionKey: "agent:main:cli:direct:owner",
    text: "What is the status of this session?",
    channel: "cli",
    senderId: "cli",
    chatType: "direct",
    toolChoice: "required",
  });
  const messages = harness.messages(result.sessionKey);
  return { result, messages };
}

describe("a tool-calling turn on a local model", () => {
  it("tiny random-weights GGUF: valid tool call, tool result stored, run ends with an answer", async () => {
    const { result, messages } = await toolTurn(tinyPath);
    expect(result.error).toBeUndefined();
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const call =
      messages[1]?.role === "assistant"
        ? messages[1].content.find((b) => b.type === "toolCall")
        : undefined;
    expect(call?.type === "toolCall" && call.name).toBe("session_status");
    const toolResult = messages[2];
    expect(toolResult?.role === "toolResult" && toolResult.isError).toBe(false);
    expect(JSON.stringify(toolResult)).toContain(result.sessionId);
    const last = messages[3];
    // random weights babble until the token limit: "length" is an honest end, "error" would not be
    expect(last?.role === "assistant" && ["stop", "length"].includes(last.stopReason)).toBe(true);
    expect(last?.role === "assistant" && last.usage.input).toBeGreaterThan(0);
    expectRepaired(messages);
    expect(harness?.agent.modelState()).toEqual({ local: "ready" });
  }, 120000);

  it.skipIf(!hasStories)(
    "stories260K: valid tool call and a stored, repaired transcript",
    async () => {
      const { result, messages } = await toolTurn(STORIES);
      expect(result.error).toBeUndefined();
      const call =
        messages[1]?.role === "assistant"
          ? messages[1].content.find((b) => b.type === "toolCall")
          : undefined;
      expect(call?.type === "toolCall" && call.name).toBe("session_status");
      expect(messages.filter((m) => m.role === "toolResult")).toHaveLength(1);
      expectRepaired(messages);
    },
    120000,
  );
});
