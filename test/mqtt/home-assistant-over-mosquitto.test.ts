/**
 * Plays Home Assistant against the real `clawbox run` program over a real mosquitto
 * broker (started here on a free 127.0.0.1 port with a temp config): discovery of the
 * device and every entity, a prompt and its reply event, both buttons, a republish on
 * `homeassistant/status` online, `clawbox mqtt status`, and the broker's last will
 * `offline` after `kill -9`. Replies come from the fake OpenAI-compatible server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiText, type ScriptedServer, startFakeOpenAI } from "../fakes/openai-server.ts";
import { MOSQUITTO, type Mosquitto, startMosquitto } from "../support/mosquitto.ts";
import { type MqttProbe, startProbe } from "../support/mqtt-probe.ts";
import { runCli } from "../support/run-cli.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

if (!MOSQUITTO) {
  console.warn(
    "skipping the mosquitto integration test: mosquitto is not installed (apt-get install mosquitto)",
  );
}

const NODE = "itbox";
const BASE = `clawbox/${NODE}`;
const PREFIX = "homeassistant";
const ENTITIES: Record<string, string[]> = {
  "text/itbox/prompt": ["command_topic", "max"],
  "sensor/itbox/status": ["state_topic", "json_attributes_topic", "options"],
  "sensor/itbox/last_reply": ["state_topic", "json_attributes_topic"],
  "event/itbox/reply": ["state_topic", "event_types"],
  "button/itbox/new_session": ["command_topic", "payload_press"],
  "button/itbox/compact": ["command_topic", "payload_press"],
  "select/itbox/model": ["command_topic", "state_topic", "options"],
  "binary_sensor/itbox/busy": ["state_topic", "payload_on", "payload_off"],
};

describe.skipIf(!MOSQUITTO)("Home Assistant over a real mosquitto broker", () => {
  let broker: Mosquitto;
  let model: ScriptedServer;
  let probe: MqttProbe;
  let home: string;
  let box: ChildProcess | undefined;
  let boxOutput = "";

  beforeAll(async () => {
    broker = await startMosquitto();
    model = await startFakeOpenAI();
    home = mkdtempSync(join(tmpdir(), "clawbox-ha-"));
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({
        models: {
          primary: "cloud",
          providers: {
            cloud: {
              kind: "openai",
              baseUrl: model.url,
              model: "fake",
              authProfiles: [{ id: "k", apiKey: "sk-test-key-not-secret-1" }],
            },
            local: { kind: "local", threads: 1 },
          },
        },
        memory: { enabled: false },
        mqtt: {
          enabled: true,
          url: broker.url,
          nodeId: NODE,
          username: "ha",
          password: "pw-never-shown",
        },
      }),
    );
    probe = await startProbe(broker.url, [`${PREFIX}/#`, `${BASE}/#`]);
  });

  afterAll(async () => {
    box?.kill("SIGKILL");
    await probe?.close();
    await model?.close();
    await broker?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("is discovered, answers, obeys both buttons, republishes, and goes offline by its last will on kill -9", {
    timeout: 120_000,
  }, async () => {
    box = spawn(CLAWBOX_BIN, ["run", "--port", "0"], {
      env: { ...process.env, CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    box.stdout?.on("data", (d) => {
      boxOutput += d;
    });
    box.stderr?.on("data", (d) => {
      boxOutput += d;
    });

    // Discovery: one device, every entity with its schema fields, retained.
    const configs = await Promise.all(
      Object.keys(ENTITIES).map((id) =>
        probe.waitFor((m) => m.topic === `${PREFIX}/${id}/config`, { timeoutMs: 30_000 }),
      ),
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- clawbox run:\n${boxOutput}`);
    });
    for (const message of configs) {
      const config = probe.json(message);
      const id = message.topic.slice(PREFIX.length + 1, -"/config".length);
      for (const field of ENTITIES[id] ?? [])
        expect(config, `${id}.${field}`).toHaveProperty(field);
      expect(config).toMatchObject({
        unique_id: `clawbox_${NODE}_${id.split("/")[2]}`,
        availability_topic: `${BASE}/availability`,
        device: { identifiers: [`clawbox_${NODE}`], manufacturer: "clawbox", model: "clawbox" },
        origin: { name: "clawbox" },
      });
      expect(typeof (config.device as { sw_version?: unknown }).sw_version).toBe("string");
      expect(message.text).not.toContain("pw-never-shown");
    }
    expect(probe.json(configs[6] as (typeof configs)[number]).options).toEqual(["cloud", "local"]);
    await probe.waitFor((m) => m.topic === `${BASE}/availability` && m.text === "online");

    // A prompt with an id: the reply event echoes it.
    model.enqueue(openaiText("The doorbell rang twice today."));
    let since = probe.messages.length;
    await probe.publish(
      `${BASE}/prompt/set`,
      JSON.stringify({ prompt: "Who rang the doorbell today?", id: "doorbell-1" }),
    );
    const reply = await probe.waitFor((m) => m.topic === `${BASE}/event`, {
      since,
      timeoutMs: 30_000,
    });
    expect(probe.json(reply)).toEqual({
      event_type: "reply",
      text: "The doorbell rang twice today.",
      id: "doorbell-1",
      session_key: "agent:main:mqtt:direct:home-assistant",
    });
    await probe.waitFor(
      (m) => m.topic === `${BASE}/reply` && m.text === "The doorbell rang twice today.",
      { since },
    );

    // Both buttons.
    since = probe.messages.length;
    await probe.publish(`${BASE}/new_session/press`, "PRESS");
    const fresh = await probe.waitFor((m) => m.topic === `${BASE}/event`, { since });
    expect(probe.json(fresh)).toMatchObject({ event_type: "reply", command: "new_session" });
    since = probe.messages.length;
    await probe.publish(`${BASE}/compact/press`, "PRESS");
    const compact = await probe.waitFor((m) => m.topic === `${BASE}/event`, {
      since,
      timeoutMs: 30_000,
    });
    expect(probe.json(compact)).toMatchObject({ event_type: "reply", command: "compact" });

    // Home Assistant restarts: discovery comes again.
    since = probe.messages.length;
    await probe.publish(`${PREFIX}/status`, "online");
    for (const id of Object.keys(ENTITIES)) {
      await probe.waitFor((m) => m.topic === `${PREFIX}/${id}/config`, { since });
    }

    // The CLI sees the live connection.
    const status = await runCli(["mqtt", "status", "--json"], { CLAWBOX_HOME: home });
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ enabled: true, state: "connected", broker: broker.url });
    expect(report.entities).toHaveLength(8);
    expect(status.stdout).not.toContain("pw-never-shown");
    const channels = await runCli(["channels", "status", "--json"], { CLAWBOX_HOME: home });
    const rows = (JSON.parse(channels.stdout) as { channels: { channel: string }[] }).channels;
    expect(rows.find((row) => row.channel === "mqtt")).toMatchObject({ state: "connected" });
    const doctor = await runCli(["doctor", "--json"], { CLAWBOX_HOME: home });
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string }[] })
      .checks;
    expect(checks.filter((c) => c.name.startsWith("mqtt"))).toEqual([
      expect.objectContaining({ name: "mqtt broker", status: "ok" }),
      expect.objectContaining({ name: "mqtt bridge", status: "ok" }),
    ]);

    // kill -9: the broker publishes the last will.
    since = probe.messages.length;
    const exited = new Promise((resolve) => box?.once("exit", resolve));
    box.kill("SIGKILL");
    const offline = await probe.waitFor(
      (m) => m.topic === `${BASE}/availability` && m.text === "offline",
      { since, timeoutMs: 60_000 },
    );
    expect(offline.text).toBe("offline");
    await exited;
    const after = await runCli(["mqtt", "status", "--json"], { CLAWBOX_HOME: home });
    expect(JSON.parse(after.stdout)).toMatchObject({ state: "not running" });
    expect(boxOutput).not.toContain("pw-never-shown");
    expect(boxOutput).not.toContain("sk-test-key-not-secret-1");
  });
});
