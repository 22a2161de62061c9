/**
 * A model setting changed while a turn runs (a model pulled by the console, an edited
 * config file): the running turn finishes on the provider it started with; that provider
 * is disposed only after, and the next turn gets a fresh one.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { createHarness, type Harness, ownerRequest } from "./agent-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("reloading model settings", () => {
  it("disposes a changed provider only once the turn running on it has finished", async () => {
    const events: string[] = [];
    const fake = createFakeProvider({
      script: () => ({ text: "a reply that takes a while to stream", chunkSize: 2, delayMs: 15 }),
    });
    const provider = {
      ...fake,
      async dispose() {
        events.push("disposed");
      },
    };
    harness = createHarness({
      providers: { fake: provider },
      config: {
        models: {
          primary: "fake",
          fallbacks: [],
          providers: { fake: { kind: "local", threads: 1 } },
        },
      },
    });
    const h = harness;
    let deltas = 0;
    const turn = h.agent
      .chat({
        ...ownerRequest("hello"),
        onEvent: (event) => {
          if (event.type === "message_update") deltas += 1;
        },
      })
      .then((result) => {
        events.push("turn ended");
        return result;
      });
    while (deltas < 2) await Bun.sleep(5);

    const changed = h.agent.reloadModels({
      ...h.config.models,
      providers: {
        fake: { ...h.config.models.providers.fake, threads: 2 },
      } as typeof h.config.models.providers,
    });
    expect(changed).toEqual(["fake"]);
    const result = await turn;
    expect(result.error).toBeUndefined();
    expect(result.reply).toBe("a reply that takes a while to stream");
    await h.agent.idle();
    await Bun.sleep(20);
    expect(events).toEqual(["turn ended", "disposed"]);
  });
});
