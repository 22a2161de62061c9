import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyGguf } from "../../../test/fixtures/tiny-gguf.ts";
import { type CollectedStream, collectStream } from "../../../test/support/collect-stream.ts";
import type { AssistantMessage, Message } from "../../messages/index.ts";
import type { ProviderRequest } from "../provider.ts";
import { LocalProvider } from "./local-provider.ts";

// The project's own random-weights GGUF: grammar-constrained JSON must still yield a
// valid tool call, and a turn after a tool result must reuse the cached prefix.
let provider: LocalProvider;
beforeAll(async () => {
  const path = join(mkdtempSync(join(tmpdir(), "clawbox-tiny-")), "tiny.gguf");
  await writeTinyGguf(path);
  provider = new LocalProvider("tiny", {
    kind: "local",
    path,
    threads: 1,
    temperature: 0,
    maxTokens: 400,
    maxArgChars: 12,
    contextSize: 2048,
  });
});
afterAll(() => provider.dispose());

const tools = [
  {
    name: "set_light",
    description: "Switch a light",
    parameters: {
      type: "object",
      properties: { room: { type: "string" }, on: { type: "boolean" }, level: { type: "integer" } },
      required: ["room", "on"],
    },
  },
];

async function finalOf(request: ProviderRequest): Promise<CollectedStream["final"]> {
  return (await collectStream(provider, request)).final;
}

describe("local provider on the tiny random-weights GGUF", () => {
  it("emits a schema-valid tool call, then reuses the cache after the tool result", async () => {
    const messages: Message[] = [
      { role: "user", content: "Turn on the kitchen light", timestamp: 1 },
    ];
    const request = (): ProviderRequest => ({
      systemPrompt: "You control the house.",
      messages,
      tools,
      toolChoice: "required",
      sessionId: "tiny",
    });
    const first = await finalOf(request());
    expect(first.type).toBe("done");
    const message = first.message as AssistantMessage;
    const call = message.content.find((block) => block.type === "toolCall");
    if (call?.type !== "toolCall")
      throw new Error(`no tool call: ${JSON.stringify(message.content)}`);
    expect(call.name).toBe("set_light");
    expect(typeof call.arguments.room).toBe("string");
    expect(typeof call.arguments.on).toBe("boolean");
    messages.push(message, {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: "ok" }],
      isError: false,
      timestamp: 2,
    });
    const second = await finalOf({ ...request(), toolChoice: "auto" });
    expect(second.type).toBe("done");
    const before = message.usage.input + message.usage.cacheRead + message.usage.output;
    expect(second.message.usage.cacheRead).toBeGreaterThanOrEqual(before - 1);
  });
});
