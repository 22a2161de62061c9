/**
 * Compaction on a 2048-token local window (stories260K through the real llama.cpp
 * provider): the summarizer's prompts and chunks are sized from the window before each
 * call, so level 1 succeeds instead of failing with "prompt has N tokens; the local
 * context holds 2048" (which cost two full evaluations per turn on a Pi), and a message
 * too big for any chunk goes straight to level 2 without a failed model call first.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type Fixture, makeFixture } from "../../test/fixtures/engine-fixture.ts";
import { HAVE_STORIES, STORIES_MODEL } from "../../test/support/stories-model.ts";
import type { Message } from "../messages/index.ts";
import { LocalProvider, type Provider, type ProviderRequest } from "../providers/index.ts";

const fixtures: Fixture[] = [];
const providers: Provider[] = [];
afterAll(async () => {
  for (const fx of fixtures) fx.close();
  for (const provider of providers) await provider.dispose?.();
});

const requests: ProviderRequest[] = [];
const errors: string[] = [];

/** stories260K with its own 2048-token window, recording every request and failure. */
function storiesProvider(): Provider {
  const inner = new LocalProvider("local", {
    kind: "local",
    path: STORIES_MODEL,
    threads: 1,
    temperature: 0,
    seed: 1,
    maxTokens: 256,
  });
  providers.push(inner);
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === "stream")
        return async function* (request: ProviderRequest) {
          requests.push(request);
          for await (const event of target.stream(request)) {
            if (event.type === "error") errors.push(event.error.message);
            yield event;
          }
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const filler = (n: number) =>
  "The little dog and the big cat played in the garden with a red ball. ".repeat(n);

function seed(fx: Fixture, turns: number, big?: string) {
  const session = fx.session();
  const add = (message: Message) =>
    fx.store.transcript.append(session.sessionId, { type: "message", message });
  const t = Date.now() - 3_600_000;
  add({
    role: "user",
    content:
      "Remember the automation id 3f2b8c1e-9a4d-4e7b-8c2f-1d6e5a9b0c7d and host 10.0.0.7:8123.",
    timestamp: t,
  });
  if (big) add({ role: "user", content: big, timestamp: t + 1 });
  for (let i = 0; i < turns; i++) {
    // Home Assistant entity ids: opaque identifiers the summary prompt must list verbatim.
    const id = `${(0x3f2b8c1e + i * 7919).toString(16)}-9a4d-4e7b-8c2f-${(1e11 + i).toString(16)}`;
    add({
      role: "user",
      content: `Story ${i} for automation ${id}: ${filler(2)}`,
      timestamp: t + 10 + i * 2,
    });
    add({
      role: "assistant",
      content: [{ type: "text", text: `Once upon a time ${i}. ${filler(2)}` }],
      provider: "local",
      model: "stories260K",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      stopReason: "stop",
      timestamp: t + 11 + i * 2,
    });
  }
  return fx.store.sessions.require(session.sessionId);
}

/** Compacts a fresh session of `turns` seeded turns (and `big`, if given) on stories260K. */
async function compactSeeded(turns: number, big?: string) {
  const fx = makeFixture();
  fixtures.push(fx);
  const provider = storiesProvider();
  requests.length = 0;
  errors.length = 0;
  const session = seed(fx, turns, big);
  return fx.engine.compact({ session, provider, reason: "manual" });
}

describe.skipIf(!HAVE_STORIES)("compaction on stories260K's 2048-token window", () => {
  it("summarizes at level 1 with no call overflowing the window", {
    timeout: 600_000,
  }, async () => {
    const result = await compactSeeded(24);
    expect(errors).toEqual([]);
    expect(result).toMatchObject({ compacted: true, level: 1 });
    expect(requests.length).toBeGreaterThan(1);
  });

  it("a message bigger than any chunk goes to level 2 without a failed call first", {
    timeout: 600_000,
  }, async () => {
    const result = await compactSeeded(6, `A very long letter. ${filler(120)}`);
    expect(errors).toEqual([]);
    expect(result).toMatchObject({ compacted: true, level: 2 });
  });
});
