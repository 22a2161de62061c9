/**
 * Regression: on stories260K (2048-token window, 512-token vocabulary, ~2.5 chars per
 * token) the full system prompt alone outgrew the window, so the second turn of a chat
 * failed with CONTEXT_OVERFLOW. Three turns in one session through the real agent, the
 * real context engine and the real llama.cpp provider must all succeed, each prompt
 * (counted by the model's own tokenizer: evaluated + reused tokens) must fit the window
 * minus the reply reserve, and the system prompt prefix must stay byte-identical.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../test/agent/agent-harness.ts";
import { HAVE_STORIES, STORIES_MODEL } from "../../test/support/stories-model.ts";
import type { AssistantMessage } from "../messages/index.ts";
import { IDENTITY_LINE } from "../prompt/index.ts";
import { createProvider, type Provider, type ProviderRequest } from "../providers/index.ts";
import { seedWorkspace } from "../workspace/index.ts";

const KEY = "agent:main:cli:direct:owner";
let harness: Harness | undefined;
let provider: Provider | undefined;
const requests: ProviderRequest[] = [];

/** The real provider, recording each request it is sent. */
function recording(inner: Provider): Provider {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === "stream")
        return (request: ProviderRequest) => {
          requests.push(request);
          return target.stream(request);
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

beforeAll(() => {
  if (!HAVE_STORIES) return;
  const entry = {
    kind: "local" as const,
    path: STORIES_MODEL,
    threads: 1,
    temperature: 0.7,
    seed: 7,
    maxTokens: 512,
  };
  provider = recording(createProvider("local", entry));
  harness = createHarness({
    engine: "real",
    providers: { local: provider },
    config: { models: { primary: "local", fallbacks: [], providers: { local: entry } } },
  });
  // The workspace `clawbox chat` starts with: default bootstrap files, BOOTSTRAP.md pending.
  seedWorkspace(harness.paths.workspace);
});
afterAll(async () => {
  await harness?.close();
  await provider?.dispose?.();
});

describe.skipIf(!HAVE_STORIES)("turns on stories260K's 2048-token window", () => {
  it("three turns succeed, every prompt fits window − reserve, the prefix stays identical", {
    timeout: 600_000,
  }, async () => {
    if (!harness || !provider) throw new Error("harness not built");
    const texts = ["Once upon a time", "The little dog", "Then the big cat said"];
    for (const text of texts) {
      const result = await harness.agent.chat({
        sessionKey: KEY,
        text,
        channel: "cli",
        senderId: "cli",
        chatType: "direct",
      });
      expect(result.error).toBeUndefined();
    }
    const window = await provider.contextWindow();
    const reserve = Math.min(harness.config.context.reserveTokens, Math.floor(window * 0.25));
    const replies = harness
      .messages(KEY)
      .filter((m): m is AssistantMessage => m.role === "assistant");
    expect(replies.length).toBeGreaterThanOrEqual(texts.length);
    for (const reply of replies) {
      expect(reply.stopReason).not.toBe("error");
      // The provider's own tokenizer: tokens evaluated plus tokens reused from the KV cache.
      const promptTokens = reply.usage.input + reply.usage.cacheRead;
      expect(promptTokens).toBeGreaterThan(0);
      expect(promptTokens).toBeLessThanOrEqual(window - reserve);
    }
    // The agent's own calls (compaction summaries use their own short prompt).
    const agentCalls = requests.filter((r) => r.systemPrompt.startsWith(IDENTITY_LINE));
    const prefixes = new Set(agentCalls.map((r) => r.systemPrompt.slice(0, r.cacheBoundary)));
    expect(agentCalls.length).toBeGreaterThanOrEqual(texts.length);
    expect(prefixes.size).toBe(1);

    const session = harness.store.sessions.byKey(KEY);
    if (!session || !harness.engine.report) throw new Error("no session or report");
    const report = await harness.engine.report({ session, modelKind: "local", provider });
    expect(report.budget.contextWindow).toBe(window);
    expect(report.budget.exactTokens).toBe(true);
    expect(report.budget.steps.length).toBeGreaterThan(0);
    const largest = Math.max(...replies.map((r) => r.usage.input + r.usage.cacheRead));
    console.info(
      `stories260K: ${replies.length} replies, largest prompt ${largest} of ${window - reserve} tokens; plan: ${report.budget.steps.join("; ")}`,
    );
  });
});
