/**
 * `clawbox channels status` listed MQTT with "inbox: none" while `clawbox mqtt status`
 * said "1 received, 1 replied": the bridge keeps no inbox tables. Now its prompt counts
 * are the MQTT row's inbox/outbox, and both commands say the same.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { statusFilePath, writeStatusFile } from "../../src/mqtt/bridge-status.ts";
import { runCli } from "../support/run-cli.ts";

const home = mkdtempSync(join(tmpdir(), "clawbox-mqtt-agree-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("MQTT in channels status", () => {
  it("shows the bridge's received and replied prompts, as mqtt status does", async () => {
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({ mqtt: { enabled: true, url: "mqtt://127.0.0.1:1883" } }),
    );
    const now = Date.now();
    writeStatusFile(statusFilePath(home), {
      pid: process.pid,
      broker: "mqtt://127.0.0.1:1883",
      clientId: "clawbox-test",
      state: "connected",
      since: now - 900_000,
      connects: 1,
      lastMessageAt: now - 872_000,
      entities: [],
      removed: [],
      busy: false,
      prompts: { received: 1, rejected: 0, replied: 1, failed: 0 },
      updatedAt: now,
    });
    const mqtt = await runCli(["--home", home, "mqtt", "status"]);
    expect(mqtt.stdout).toContain("1 received, 1 replied");
    const channels = await runCli(["--home", home, "channels", "status"]);
    expect(channels.stdout).toMatch(
      /mqtt: connected[^\n]*\n\s+last event 87\d s ago; inbox: 1 received; outbox: 1 replied/,
    );
  });
});
