/**
 * The box acts on the house through Home Assistant's MCP server (the fake of HA's
 * endpoint, test/fakes/home-assistant-mcp.ts): an owner on QQ asks to turn off the
 * kitchen light and HA's turn-off tool is called once, with HA's own tool name and the
 * right arguments; HA down, the turn still answers and says the house is unreachable;
 * a stranger never gets HA's tools; a redirect never carries the token anywhere.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/messages/index.ts";
import type { ProviderRequest } from "../../src/providers/index.ts";
import { type QqRig, startQqRig } from "../channels/qq-service-harness.ts";
import type { FakeStep } from "../fakes/fake-provider.ts";
import { type FakeHomeAssistant, startFakeHomeAssistant } from "../fakes/home-assistant-mcp.ts";
import { waitUntil } from "../fakes/qq-platform.ts";

const OWNER = "E4F1C2A90B7D4E2F8A1C3B5D7E9F0A12";
const STRANGER = "0A1B2C3D4E5F60718293A4B5C6D7E8F9";

let rig: QqRig | undefined;
let ha: FakeHomeAssistant | undefined;
let other: FakeHomeAssistant | undefined;
afterEach(async () => {
  await rig?.close();
  await ha?.close();
  await other?.close();
  rig = ha = other = undefined;
});

const textOf = (message: Message | undefined) =>
  message ? JSON.stringify("content" in message ? message.content : "") : "";

/** A model that switches off whatever light it is asked about with the tool it is offered for that. */
function houseModel(request: ProviderRequest): FakeStep {
  const last = request.messages.at(-1);
  if (last?.role === "toolResult") return { text: "The kitchen light is off now." };
  if (/unreachable/.test(textOf(last))) return { text: "I can't reach the house right now." };
  const off = request.tools.find((t) => /TurnOff$/.test(t.name));
  return off
    ? { toolCalls: [{ name: off.name, arguments: { name: "Kitchen Light" } }] }
    : { text: "I have no way to switch lights." };
}

async function start(config: Record<string, unknown>, owners = [`qq:${OWNER}`]) {
  const r = await startQqRig({
    script: houseModel,
    // A cloud model's window: every schema fits (a small one drops the last tools).
    contextWindow: 64_000,
    config: {
      agent: { owners },
      tools: { mcp: { connectTimeoutMs: 3000, callTimeoutMs: 3000, reconnectDelayMs: 60_000 } },
      ...config,
    },
  });
  await r.harness.agent.ready();
  await waitUntil(() => r.service.status()[0]?.state === "connected", 10_000, "QQ READY");
  return r;
}

async function ask(r: QqRig, openid: string, text: string): Promise<string> {
  const before = r.platform.sent.length;
  r.platform.c2c(openid, text);
  await waitUntil(() => r.platform.sent.length > before, 15_000, "a reply");
  const body = r.platform.sent.at(-1)?.body as { content?: string } | undefined;
  return String(body?.content);
}

describe("Home Assistant over MCP", () => {
  it("an owner on QQ turns off the kitchen light: HA's turn-off tool is called once with the light's name", async () => {
    ha = await startFakeHomeAssistant();
    rig = await start({ homeAssistant: { url: ha.url, token: ha.token } });
    expect(rig.harness.agent.homeAssistantStatus()).toMatchObject({ state: "ready", tools: 8 });

    const reply = await ask(rig, OWNER, "Please turn off the kitchen light");
    expect(reply).toBe("The kitchen light is off now.");
    expect(ha.calls).toEqual([
      { name: "intent__HassTurnOff", arguments: { name: "Kitchen Light" } },
    ]);
    expect(ha.entities.find((e) => e.id === "light.kitchen_light")?.state).toBe("off");
    // HA's tools are offered under HA's names, all of them to a cloud model.
    const offered = rig.fake.requests[0]?.tools.map((t) => t.name) ?? [];
    expect(offered).toEqual(
      expect.arrayContaining([
        "intent__HassTurnOn",
        "intent__HassTurnOff",
        "homeassistant__GetLiveContext",
      ]),
    );
    // Every request HA saw carried the token; nothing else was sent.
    expect(new Set(ha.authorizations)).toEqual(new Set([`Bearer ${ha.token}`]));
  }, 40_000);

  it("a stranger on QQ is never offered HA's tools, and HA is never called", async () => {
    ha = await startFakeHomeAssistant();
    rig = await start({ homeAssistant: { url: ha.url, token: ha.token } });
    const reply = await ask(rig, STRANGER, "turn off the kitchen light");
    expect(reply).toBe("I have no way to switch lights.");
    expect(rig.fake.requests[0]?.tools.some((t) => t.name.includes("Hass"))).toBe(false);
    expect(ha.calls).toEqual([]);
  }, 40_000);

  it("HA down: the turn answers without HA's tools and the model is told the house is unreachable, in plain words", async () => {
    ha = await startFakeHomeAssistant();
    const { url, token } = ha;
    await ha.close();
    ha = undefined;
    rig = await start({ homeAssistant: { url, token } });
    const status = rig.harness.agent.homeAssistantStatus();
    expect(status.state).toBe("failed");
    expect(status.reason).toMatch(/^Nothing answers at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);

    const reply = await ask(rig, OWNER, "Please turn off the kitchen light");
    expect(reply).toBe("I can't reach the house right now.");
    const request = rig.fake.requests[0];
    expect(request?.tools.some((t) => t.name.includes("Hass"))).toBe(false);
    expect(textOf(request?.messages.at(-1))).toContain(
      "notice: Home Assistant (the house) is unreachable now: Nothing answers at",
    );
  }, 40_000);

  it("a revoked token: the next call fails, HA's tools are withdrawn and the status says to make a new token", async () => {
    ha = await startFakeHomeAssistant();
    rig = await start({ homeAssistant: { url: ha.url, token: ha.token } });
    ha.revoke("another-token-after-revoking-the-first");
    await ask(rig, OWNER, "Please turn off the kitchen light");
    expect(ha.calls).toEqual([]);
    const status = rig.harness.agent.homeAssistantStatus();
    expect(status.state).toBe("failed");
    expect(status.reason).toMatch(
      /refused the token \(HTTP 401\)\. Create a new long-lived access token/,
    );
    const reply = await ask(rig, OWNER, "and the living room lamp?");
    expect(reply).toBe("I can't reach the house right now.");
  }, 40_000);

  it("a redirect is never followed: the place it points to receives nothing", async () => {
    other = await startFakeHomeAssistant();
    ha = await startFakeHomeAssistant();
    ha.mode = "redirect";
    ha.redirectTo = `${other.url}/api/mcp`;
    rig = await start({ homeAssistant: { url: ha.url, token: ha.token } });
    const status = rig.harness.agent.homeAssistantStatus();
    expect(status.state).toBe("failed");
    expect(status.reason).toBe(
      `Home Assistant's address redirects to ${other.url}/api/mcp. The token is never sent through a redirect: save the address it redirects to.`,
    );
    expect(other.authorizations).toEqual([]);
  }, 40_000);
});
