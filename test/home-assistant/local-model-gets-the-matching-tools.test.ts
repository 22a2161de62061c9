/**
 * A local (small) model is offered at most `homeAssistant.localModelTools` of HA's tools
 * per turn: those whose names, descriptions or entities (HA's own overview, read from its
 * Assist prompt) match the message; `/context` shows which were offered and why. A cloud
 * model gets them all. No HA tool name is known to the box: the fake's list decides.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, ownerRequest } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import { type FakeHomeAssistant, startFakeHomeAssistant } from "../fakes/home-assistant-mcp.ts";

let harness: Harness | undefined;
let ha: FakeHomeAssistant | undefined;
afterEach(async () => {
  await harness?.close();
  await ha?.close();
  harness = ha = undefined;
});

const houseTools = (names: string[] | undefined) => (names ?? []).filter((n) => n.includes("__"));

async function start(kind: "local" | "openai", localModelTools?: number) {
  ha = await startFakeHomeAssistant({
    entities: [
      { id: "light.kitchen_light", name: "Kitchen Light", area: "Kitchen", state: "on" },
      { id: "light.chu_fang_deng", name: "厨房灯", area: "厨房", state: "on" },
      {
        id: "media_player.living_room_tv",
        name: "Living Room TV",
        area: "Living Room",
        state: "on",
      },
    ],
  });
  const provider = createFakeProvider({
    kind,
    contextWindow: 64_000,
    script: () => ({ text: "ok" }),
  });
  harness = createHarness({
    providers: { fake: provider },
    config: {
      homeAssistant: {
        url: ha.url,
        token: ha.token,
        ...(localModelTools ? { localModelTools } : {}),
      },
    },
  });
  await harness.agent.ready();
  return provider;
}

describe("Home Assistant tools for a local model", () => {
  it("offers only the few tools matching the message, and /context says which and why", async () => {
    const provider = await start("local", 3);
    await harness?.agent.chat(ownerRequest("turn off the kitchen light"));
    const offered = houseTools(provider.requests[0]?.tools.map((t) => t.name));
    expect(offered.length).toBeLessThanOrEqual(3);
    expect(offered).toContain("intent__HassTurnOff");
    expect(offered).not.toContain("climate__HassClimateSetTemperature");
    expect(offered).not.toContain("intent__HassCancelAllTimers");

    const report = await harness?.agent.chat(ownerRequest("/context list"));
    expect(report?.reply).toContain(
      `Home Assistant tools for the local model (last turn): ${offered.length} of 8 offered (at most 3, those matching the message)`,
    );
    expect(report?.reply).toMatch(
      /intent__HassTurnOff: words turn, off; entity Kitchen Light \(light\)/,
    );
  }, 40_000);

  it("a message naming an entity in Chinese gets the tools that take an entity's name; small talk gets none", async () => {
    const provider = await start("local");
    await harness?.agent.chat(ownerRequest("把厨房灯关掉"));
    const chinese = houseTools(provider.requests[0]?.tools.map((t) => t.name));
    expect(chinese).toContain("intent__HassTurnOff");
    expect(chinese.length).toBeLessThanOrEqual(5);
    await harness?.agent.chat(ownerRequest("tell me a joke"));
    expect(houseTools(provider.requests[1]?.tools.map((t) => t.name))).toEqual([]);
  }, 40_000);

  it("a cloud model is offered every HA tool", async () => {
    const provider = await start("openai");
    await harness?.agent.chat(ownerRequest("turn off the kitchen light"));
    expect(houseTools(provider.requests[0]?.tools.map((t) => t.name))).toHaveLength(8);
  }, 40_000);
});
