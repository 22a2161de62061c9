import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { collectStream } from "../../../test/support/collect-stream.ts";
import type { AssistantMessage, Message } from "../../messages/index.ts";
import type { ProviderRequest } from "../provider.ts";
import { LocalProvider } from "./local-provider.ts";

const STORIES = join(import.meta.dirname, "../../../../shared/models/stories260K.gguf");
const hasStories = existsSync(STORIES);
if (!hasStories) console.warn(`skipping local-provider tests: ${STORIES} is absent`);

const weatherTool = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city"],
  },
};

function user(text: string): Message {
  return { role: "user", content: text, timestamp: 0 };
}

describe.skipIf(!hasStories)("local provider on stories260K", () => {
  const provider = new LocalProvider("local", {
    kind: "local",
    path: STORIES,
    threads: 1,
    temperature: 0,
    maxTokens: 48,
  });
  afterAll(() => provider.dispose());

  it("streams text deltas that add up to the final message", async () => {
    const { events, final } = await collectStream(provider, {
      systemPrompt: "You tell stories.",
      messages: [user("Once upon a time")],
      tools: [],
      sessionId: "stream",
    });
    expect(final.type).toBe("done");
    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    const text = final.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    expect(deltas.join("")).toBe(text);
    expect(final.message.usage.output).toBeGreaterThan(0);
    expect(provider.state()).toBe("ready");
  });

  it("evaluates only the appended tokens on the next turn of a session", async () => {
    const messages: Message[] = [user("Tell me about Lily.")];
    const request = (): ProviderRequest => ({
      systemPrompt: "You tell stories about animals.\nDynamic: none",
      cacheBoundary: 32,
      messages,
      tools: [],
      sessionId: "reuse",
    });
    const first = await collectStream(provider, request());
    const u1 = first.final.message.usage;
    messages.push(first.final.message, user("And then what happened?"));
    const second = await collectStream(provider, request());
    const u2 = second.final.message.usage;
    const promptBefore = u1.input + u1.cacheRead + u1.output;
    const appended = u2.input + u2.cacheRead - promptBefore;
    expect(appended).toBeGreaterThan(0);
    // Everything from turn 1 is reused except possibly its last sampled token.
    expect(u2.cacheRead).toBeGreaterThanOrEqual(promptBefore - 1);
    expect(u2.input).toBeLessThanOrEqual(appended + 1);
    expect(provider.stats().lastRequest?.cacheReadTokens).toBe(u2.cacheRead);
  });

  it("keeps a separate cache per session", async () => {
    const a = await collectStream(provider, {
      systemPrompt: "A",
      messages: [user("one")],
      tools: [],
      sessionId: "a",
    });
    const b = await collectStream(provider, {
      systemPrompt: "B",
      messages: [user("two")],
      tools: [],
      sessionId: "b",
    });
    const a2 = await collectStream(provider, {
      systemPrompt: "A",
      messages: [user("one"), a.final.message, user("three")],
      tools: [],
      sessionId: "a",
    });
    expect(b.final.message.usage.cacheRead).toBe(0);
    expect(a2.final.message.usage.cacheRead).toBeGreaterThan(a.final.message.usage.input);
  });

  it("produces a grammar-constrained tool call that parses", async () => {
    const { events, final } = await collectStream(provider, {
      systemPrompt: "You can check the weather.",
      messages: [user("What is the weather in Paris?")],
      tools: [weatherTool],
      toolChoice: "required",
      maxTokens: 200,
      sessionId: "tools",
    });
    expect(final.type).toBe("done");
    const message = final.message as AssistantMessage;
    expect(message.stopReason).toBe("toolUse");
    const call = message.content.find((b) => b.type === "toolCall");
    expect(call?.type === "toolCall" && call.name).toBe("get_weather");
    expect(call?.type === "toolCall" && typeof call.arguments.city).toBe("string");
    expect(events.some((e) => e.type === "toolcall")).toBe(true);
  });

  it("reports a prompt longer than the context as CONTEXT_OVERFLOW", async () => {
    const small = new LocalProvider("small", {
      kind: "local",
      path: STORIES,
      threads: 1,
      temperature: 0,
      maxTokens: 8,
      contextSize: 256,
    });
    const { final } = await collectStream(small, {
      systemPrompt: "x",
      messages: [user("word ".repeat(400))],
      tools: [],
    });
    await small.dispose();
    expect(final.type).toBe("error");
    expect(final.type === "error" && final.error.code).toBe("CONTEXT_OVERFLOW");
    expect(final.message.stopReason).toBe("error");
  });
});

describe("local provider load failures", () => {
  /** A provider for `path` (or none configured) and the end of its first turn. */
  async function firstTurn(path?: string) {
    const provider = new LocalProvider("local", {
      kind: "local",
      ...(path !== undefined ? { path } : {}),
      threads: 1,
      temperature: 0,
      maxTokens: 8,
    });
    const { final } = await collectStream(provider, {
      systemPrompt: "",
      messages: [user("hi")],
      tools: [],
    });
    return { provider, final };
  }

  it("turns a missing file into MODEL_NOT_FOUND", async () => {
    const { provider, final } = await firstTurn("/nonexistent/model.gguf");
    expect(final.type === "error" && final.error.code).toBe("MODEL_NOT_FOUND");
    expect(provider.state()).toBe("error");
  });

  it("turns a malformed file into MODEL_INVALID instead of a native abort", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-local-"));
    const path = join(dir, "bad.gguf");
    writeFileSync(path, Buffer.concat([Buffer.from("GGUF"), Buffer.alloc(60, 0xff)]));
    const { final } = await firstTurn(path);
    expect(final.type === "error" && final.error.code).toBe("MODEL_INVALID");
    expect(final.message.errorMessage).toContain("bad.gguf");
  });

  it("names the config key when no model path is set", async () => {
    const { final } = await firstTurn();
    expect(final.type === "error" && final.error.code).toBe("MODEL_NOT_FOUND");
    expect(final.message.errorMessage).toContain("models.providers.local.path");
  });
});
