/**
 * The MQTT bridge against an in-process aedes broker (a real MQTT 3.1.1 server over a
 * loopback socket), with a real agent, SQLite store and the scripted fake provider.
 * The mosquitto integration test (home-assistant-over-mosquitto) covers the whole
 * `clawbox run` process; these cover the bridge's rules one by one.
 */
import { createServer, type Server } from "node:net";
import { Aedes } from "aedes";
import { afterEach, describe, expect, it } from "vitest";
import {
  createMqttBridge,
  MAX_PENDING_TURNS,
  MAX_PROMPT_BYTES,
  type MqttBridge,
  topicLayout,
} from "../../src/mqtt/index.ts";
import { createLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider, type FakeProvider } from "../fakes/fake-provider.ts";
import { type MqttProbe, startProbe } from "../support/mqtt-probe.ts";

interface Broker {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function startAedes(
  port = 0,
  authenticate?: (
    clientId: string,
    user: string | undefined,
    password: string | undefined,
  ) => boolean,
): Promise<Broker> {
  const aedes = await Aedes.createBroker(
    authenticate
      ? {
          authenticate: (client, user, password, done) =>
            done(null, authenticate(client.id, user, password?.toString("utf8"))),
        }
      : {},
  );
  const server: Server = createServer(aedes.handle);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  return {
    url: `mqtt://127.0.0.1:${bound}`,
    port: bound,
    async close() {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

interface Setup {
  broker: Broker;
  harness: Harness;
  bridge: MqttBridge;
  probe: MqttProbe;
  fake: FakeProvider;
  cloud: FakeProvider;
  logs: string[];
  topics: ReturnType<typeof topicLayout>;
}

const NODE = "testbox";

async function setup(
  options: {
    reply?: (text: string) => string;
    delayMs?: number;
    /** The model never answers (until the agent closes). */
    hang?: boolean;
    owners?: string[];
    mqtt?: Record<string, unknown>;
    /** More model providers (e.g. a local one). */
    models?: Record<string, unknown>;
    broker?: Broker;
    beforeStart?: (probe: MqttProbe) => Promise<void>;
  } = {},
): Promise<Setup> {
  const broker = options.broker ?? (await startAedes());
  if (!options.broker) cleanups.push(() => broker.close());
  const fake = createFakeProvider({
    id: "fake",
    script: (request) => {
      const last = request.messages.at(-1);
      const text =
        last && last.role === "user"
          ? typeof last.content === "string"
            ? last.content
            : last.content.map((b) => (b.type === "text" ? b.text : "")).join("")
          : "";
      if (options.hang) return { hang: true };
      return { text: (options.reply ?? ((t) => `re: ${t}`))(text), delayMs: options.delayMs ?? 0 };
    },
  });
  const cloud = createFakeProvider({ id: "cloud", script: () => ({ text: "from the cloud" }) });
  const remote = { kind: "openai", baseUrl: "http://127.0.0.1:9", model: "m" };
  const harness = createHarness({
    providers: { fake, cloud },
    config: {
      models: {
        primary: "fake",
        fallbacks: [],
        providers: { fake: remote, cloud: remote, ...options.models },
      },
      agent: { owners: options.owners ?? ["cli"] },
      mqtt: { enabled: true, url: broker.url, nodeId: NODE, ...options.mqtt },
    },
  });
  cleanups.push(() => harness.close());
  const topics = topicLayout(harness.config.mqtt);
  const probe = await startProbe(broker.url, ["homeassistant/#", `${topics.baseTopic}/#`]);
  cleanups.push(() => probe.close());
  await options.beforeStart?.(probe);
  const logs: string[] = [];
  const bridge = createMqttBridge({
    config: harness.config,
    agent: harness.agent,
    logger: createLogger({ level: "debug", write: (line) => logs.push(line) }),
    version: "9.9.9",
    backoff: { initialMs: 50, maxMs: 400 },
  });
  cleanups.push(() => bridge.close());
  await bridge.start();
  await probe.waitFor((m) => m.topic === topics.availability && m.text === "online");
  await probe.waitFor((m) => m.topic === topics.model);
  return { broker, harness, bridge, probe, fake, cloud, logs, topics };
}

/** Text of the user turn as the agent stored it (with the per-turn envelope). */
function userTexts(harness: Harness, key: string): string[] {
  return harness
    .messages(key)
    .filter((m) => m.role === "user")
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : m.content.map((b) => (b.type === "text" ? b.text : "")).join(""),
    );
}

describe("MQTT bridge for Home Assistant (aedes broker)", () => {
  it("publishes retained discovery for one device with all entities, then online and idle state", async () => {
    const { probe, topics, broker } = await setup();
    const configs = await Promise.all(
      [
        "text/testbox/prompt",
        "sensor/testbox/status",
        "sensor/testbox/last_reply",
        "event/testbox/reply",
        "button/testbox/new_session",
        "button/testbox/compact",
        "select/testbox/model",
        "binary_sensor/testbox/busy",
      ].map((id) => probe.waitFor((m) => m.topic === `homeassistant/${id}/config`)),
    );
    // Retained: a Home Assistant that subscribes later still gets every config.
    const late = await startProbe(broker.url, ["homeassistant/#"]);
    cleanups.push(() => late.close());
    for (const message of configs) {
      const retained = await late.waitFor((m) => m.topic === message.topic);
      expect(retained.retain).toBe(true);
      const config = probe.json(message);
      expect(config.availability_topic).toBe(topics.availability);
      expect(config.device).toEqual({
        identifiers: ["clawbox_testbox"],
        name: "Clawbox testbox",
        model: "clawbox",
        manufacturer: "clawbox",
        sw_version: "9.9.9",
      });
      expect(config.origin).toEqual({ name: "clawbox", sw_version: "9.9.9" });
      expect(String(config.unique_id)).toMatch(/^clawbox_testbox_[a-z_]+$/);
    }
    const [text, status, , event, , , select, busy] = configs.map((m) => probe.json(m));
    expect(text?.command_topic).toBe(topics.prompt);
    expect(status?.options).toEqual(["idle", "thinking", "error"]);
    expect(event?.event_types).toEqual(["reply", "error", "notify"]);
    expect(select?.options).toEqual(["fake", "cloud"]);
    expect(busy).toMatchObject({ payload_on: "ON", payload_off: "OFF", state_topic: topics.busy });
    await probe.waitFor((m) => m.topic === topics.status && m.text === "idle");
    await probe.waitFor((m) => m.topic === topics.busy && m.text === "OFF");
    await probe.waitFor((m) => m.topic === topics.model && m.text === "fake");
  });

  it("answers a plain prompt as a stranger in the Home Assistant session, with busy and status around it", async () => {
    const long = "x".repeat(300);
    const { probe, topics, harness, fake } = await setup({ reply: () => long, delayMs: 5 });
    const since = probe.messages.length;
    await probe.publish(topics.prompt, "summarise the doorbell");
    const event = await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(probe.json(event)).toEqual({
      event_type: "reply",
      text: long,
      session_key: "agent:main:mqtt:direct:home-assistant",
    });
    expect(event.retain).toBe(false);
    const reply = await probe.waitFor((m) => m.topic === topics.reply, { since });
    expect([...reply.text]).toHaveLength(255);
    const attributes = await probe.waitFor((m) => m.topic === topics.replyAttributes, { since });
    expect(probe.json(attributes).text).toBe(long);
    const sequence = probe.messages
      .slice(since)
      .filter((m) => m.topic === topics.busy || m.topic === topics.status)
      .map((m) => `${m.topic.split("/").at(-1)}=${m.text}`);
    expect(sequence.slice(0, 2)).toEqual(["status=thinking", "busy=ON"]);
    await probe.waitFor((m) => m.topic === topics.busy && m.text === "OFF", { since });
    expect(userTexts(harness, "agent:main:mqtt:direct:home-assistant").join()).toContain(
      "summarise the doorbell",
    );
    // Not an owner: owner-only tools are not offered.
    expect(fake.requests[0]?.tools.map((t) => t.name)).not.toContain("exec");
  });

  it("treats Home Assistant as an owner only when mqtt:home-assistant is in agent.owners", async () => {
    const { probe, topics, fake } = await setup({ owners: ["cli", "mqtt:home-assistant"] });
    const since = probe.messages.length;
    await probe.publish(topics.prompt, "hello");
    await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(fake.requests[0]?.tools.map((t) => t.name)).toContain("exec");
  });

  it("accepts a JSON prompt, runs it in the named MQTT session and echoes the id", async () => {
    const { probe, topics, harness } = await setup();
    const since = probe.messages.length;
    await probe.publish(
      topics.prompt,
      JSON.stringify({ prompt: "lights?", session: "kitchen", id: "auto-42" }),
    );
    const event = await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(probe.json(event)).toMatchObject({
      event_type: "reply",
      id: "auto-42",
      session_key: "agent:main:mqtt:direct:kitchen",
    });
    expect(String(probe.json(event).text)).toContain("lights?");
    expect(harness.store.sessions.byKey("agent:main:mqtt:direct:kitchen")).toBeDefined();
  });

  it("never writes into a session that is not Home Assistant's: an error event, nothing stored", async () => {
    // mqtt.sessionKey pointed at the owner's main session, Home Assistant a stranger.
    const { probe, topics, harness, fake } = await setup({
      mqtt: { sessionKey: "agent:main:main" },
    });
    const since = probe.messages.length;
    await probe.publish(topics.prompt, "unlock the front door");
    const event = await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(probe.json(event)).toMatchObject({ event_type: "error" });
    expect(String(probe.json(event).text)).toContain("belongs to the owner");
    expect(fake.requests).toHaveLength(0);
    expect(harness.store.sessions.byKey("agent:main:main")).toBeUndefined();
  });

  it("answers bad payloads with an error event in plain words and keeps working", async () => {
    const { probe, topics } = await setup();
    const cases: [string | Buffer, RegExp, string?][] = [
      [Buffer.from([0x68, 0x69, 0xff, 0xfe]), /not valid UTF-8/],
      ["a".repeat(MAX_PROMPT_BYTES + 1), /16385 bytes; the limit is 16384/],
      ['{"prompt": "hi", ', /not valid JSON/],
      ['{"prompt": "hi", "session": "agent:main:cli:direct:owner", "id": "7"}', /"session"/, "7"],
      ['{"id": "8"}', /"prompt"/, "8"],
      ["   ", /empty/],
    ];
    for (const [payload, reason, id] of cases) {
      const since = probe.messages.length;
      await probe.publish(topics.prompt, payload);
      const event = await probe.waitFor((m) => m.topic === topics.event, { since });
      const body = probe.json(event);
      expect(body.event_type).toBe("error");
      expect(String(body.text)).toMatch(reason);
      expect(body.id).toBe(id);
    }
    const since = probe.messages.length;
    await probe.publish(topics.prompt, "still there?");
    const event = await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(probe.json(event)).toMatchObject({ event_type: "reply" });
  });

  it("queues prompts per session: replies come in order, busy until the last", async () => {
    const { probe, topics, harness } = await setup({ delayMs: 10 });
    const since = probe.messages.length;
    for (const n of [1, 2, 3])
      await probe.publish(topics.prompt, JSON.stringify({ prompt: `p${n}`, id: `${n}` }));
    await probe.waitFor((m) => m.topic === topics.event && probe.json(m).id === "3", { since });
    const ids = probe.messages
      .slice(since)
      .filter((m) => m.topic === topics.event)
      .map((m) => probe.json(m).id);
    expect(ids).toEqual(["1", "2", "3"]);
    const busy = probe.messages
      .slice(since)
      .filter((m) => m.topic === topics.busy)
      .map((m) => m.text);
    expect(busy.at(-1)).toBe("OFF");
    expect(busy.filter((b) => b === "OFF")).toHaveLength(1);
    expect(userTexts(harness, "agent:main:mqtt:direct:home-assistant")).toHaveLength(3);
  });

  it("keeps prompts beyond the running limit stored and answers every one, none dropped", async () => {
    const { probe, topics } = await setup({ delayMs: 50 });
    const since = probe.messages.length;
    const total = MAX_PENDING_TURNS + 4;
    for (let n = 1; n <= total; n++) {
      await probe.publish(
        topics.prompt,
        JSON.stringify({ prompt: `p${n}`, id: `${n}`, session: `s${n}` }),
      );
    }
    const events = () =>
      probe.messages
        .slice(since)
        .filter((m) => m.topic === topics.event)
        .map((m) => probe.json(m));
    const deadline = Date.now() + 30_000;
    while (events().length < total && Date.now() < deadline) await Bun.sleep(50);
    expect(events().filter((e) => e.event_type === "error")).toEqual([]);
    expect(
      events()
        .map((e) => e.id)
        .sort((a, b) => Number(a) - Number(b)),
    ).toEqual(Array.from({ length: total }, (_, i) => `${i + 1}`));
  });

  it("starts a new session and compacts on button presses", async () => {
    const { probe, topics, harness } = await setup();
    const key = "agent:main:mqtt:direct:home-assistant";
    let since = probe.messages.length;
    await probe.publish(topics.prompt, "first");
    await probe.waitFor((m) => m.topic === topics.event, { since });
    const before = harness.store.sessions.byKey(key)?.sessionId;
    since = probe.messages.length;
    await probe.publish(topics.newSession, "PRESS");
    const fresh = await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(probe.json(fresh)).toMatchObject({ event_type: "reply", command: "new_session" });
    expect(String(probe.json(fresh).text)).toMatch(/new session/i);
    expect(harness.store.sessions.byKey(key)?.sessionId).not.toBe(before);
    since = probe.messages.length;
    await probe.publish(topics.compact, "PRESS");
    const compact = await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(probe.json(compact)).toMatchObject({ command: "compact", session_key: key });
    expect(String(probe.json(compact).text)).toMatch(/compact/i);
  });

  it("switches the model from the select and refuses unknown models", async () => {
    // Home Assistant trusted as an owner: it may pick a cloud model (see the stranger case below).
    const { probe, topics, harness } = await setup({ owners: ["cli", "mqtt:home-assistant"] });
    let since = probe.messages.length;
    await probe.publish(topics.modelSet, "cloud");
    await probe.waitFor((m) => m.topic === topics.model && m.text === "cloud", { since });
    expect(harness.agent.primaryModel()).toBe("cloud");
    since = probe.messages.length;
    await probe.publish(topics.prompt, "who answers?");
    const event = await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(probe.json(event).text).toBe("from the cloud");
    since = probe.messages.length;
    await probe.publish(topics.modelSet, "gpt-99");
    const error = await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(probe.json(error)).toMatchObject({ event_type: "error", command: "select_model" });
    expect(String(probe.json(error).text)).toContain("fake, cloud");
    expect(harness.agent.primaryModel()).toBe("cloud");
  });

  it("lets a stranger on the broker choose only a local model: the owner's next turn stays local (issue 23, attack 5)", async () => {
    const { probe, topics, harness, fake, cloud } = await setup({
      models: { fake: { kind: "local" } },
    });
    let since = probe.messages.length;
    await probe.publish(topics.modelSet, "cloud");
    const refused = await probe.waitFor((m) => m.topic === topics.event, { since });
    expect(probe.json(refused)).toMatchObject({ event_type: "error", command: "select_model" });
    expect(String(probe.json(refused).text)).toContain("Only a local model");
    expect(harness.agent.primaryModel()).toBe("fake");
    const owner = await harness.agent.chat({
      sessionKey: "agent:main:cli:direct:owner",
      text: "what is the garage code?",
      channel: "cli",
      senderId: "cli",
      chatType: "direct",
    });
    expect(owner.error).toBeUndefined();
    expect(cloud.requests).toHaveLength(0);
    expect(fake.requests.length).toBeGreaterThan(0);
    // A local model may still be chosen by anyone.
    since = probe.messages.length;
    await probe.publish(topics.modelSet, "fake");
    await probe.waitFor((m) => m.topic === topics.model && m.text === "fake", { since });
  });

  it("publishes discovery again when Home Assistant comes online", async () => {
    const { probe, topics } = await setup();
    const since = probe.messages.length;
    await probe.publish(topics.haStatus, "online");
    await probe.waitFor((m) => m.topic === "homeassistant/text/testbox/prompt/config", { since });
    await probe.waitFor((m) => m.topic === "homeassistant/binary_sensor/testbox/busy/config", {
      since,
    });
    await probe.waitFor((m) => m.topic === topics.availability && m.text === "online", { since });
  });

  it("removes stale retained entities of this device only", async () => {
    const stale = "homeassistant/switch/testbox/old_toggle/config";
    const foreign = "homeassistant/switch/testbox/someone_else/config";
    const { probe, broker } = await setup({
      beforeStart: async (p) => {
        await p.publish(
          stale,
          JSON.stringify({ name: "Old", dev: { ids: ["clawbox_testbox"] } }),
          true,
        );
        await p.publish(
          foreign,
          JSON.stringify({ name: "X", device: { identifiers: ["other"] } }),
          true,
        );
      },
    });
    await probe.waitFor((m) => m.topic === stale && m.payload.byteLength === 0);
    // A Home Assistant connecting later gets the foreign config retained, but not ours.
    const later = await startProbe(broker.url, ["homeassistant/switch/#"]);
    cleanups.push(() => later.close());
    await later.waitFor((m) => m.topic === foreign);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(later.on(stale).filter((m) => m.payload.byteLength > 0)).toHaveLength(0);
    expect(probe.on(foreign).filter((m) => m.payload.byteLength === 0)).toHaveLength(0);
  });

  it("keeps secrets out of discovery, state and logs", async () => {
    const password = "hunter2-very-secret";
    // Only the test's probe may connect without the password.
    const broker = await startAedes(
      0,
      (clientId, user, pass) =>
        clientId.startsWith("probe-") || (user === "ha" && pass === password),
    );
    cleanups.push(() => broker.close());
    const { probe, topics, logs } = await setup({ broker, mqtt: { username: "ha", password } });
    await probe.publish(topics.prompt, "hi");
    await probe.waitFor((m) => m.topic === topics.event);
    for (const m of probe.messages) expect(m.text).not.toContain(password);
    expect(logs.join("\n")).not.toContain(password);
  });
});

describe("MQTT bridge connection (aedes broker)", () => {
  it("starts without a broker, connects when it appears, reconnects after a restart, and says offline on close", async () => {
    const probeBroker = await startAedes();
    const port = probeBroker.port;
    await probeBroker.close();
    const harness = createHarness({
      config: { mqtt: { enabled: true, url: `mqtt://127.0.0.1:${port}`, nodeId: NODE } },
    });
    cleanups.push(() => harness.close());
    const bridge = createMqttBridge({
      config: harness.config,
      agent: harness.agent,
      logger: createLogger({ write: () => {} }),
      version: "1.0.0",
      backoff: { initialMs: 50, maxMs: 200 },
    });
    cleanups.push(() => bridge.close());
    // Nothing listens: start() still returns at once and the bridge keeps trying.
    await bridge.start();
    expect(bridge.status().state).not.toBe("connected");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(["reconnecting", "disconnected"]).toContain(bridge.status().state);

    let broker = await startAedes(port);
    const topics = topicLayout(harness.config.mqtt);
    let probe = await startProbe(broker.url, [topics.availability]);
    await probe.waitFor((m) => m.text === "online", { timeoutMs: 5000 });
    expect(bridge.status()).toMatchObject({ state: "connected", connects: 1 });
    await probe.close();
    await broker.close();

    broker = await startAedes(port);
    cleanups.push(() => broker.close());
    probe = await startProbe(broker.url, [topics.availability]);
    cleanups.push(() => probe.close());
    await probe.waitFor((m) => m.text === "online", { timeoutMs: 5000 });
    expect(bridge.status()).toMatchObject({ state: "connected", connects: 2 });

    const since = probe.messages.length;
    await bridge.close();
    await probe.waitFor((m) => m.text === "offline", { since });
    expect(bridge.status().state).toBe("stopped");
  });
});
