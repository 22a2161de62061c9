import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../support/mosquitto.ts";
import { runCli } from "../support/run-cli.ts";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function homeWith(config: Record<string, unknown>): string {
  const home = mkdtempSync(join(tmpdir(), "clawbox-mqtt-cli-"));
  homes.push(home);
  writeFileSync(join(home, "clawbox.json"), JSON.stringify(config));
  return home;
}

describe("clawbox mqtt status and doctor without a running service", () => {
  it("reports a disabled bridge, and its entities, without connecting", async () => {
    const home = homeWith({});
    const run = await runCli(["mqtt", "status"], { CLAWBOX_HOME: home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("MQTT bridge: disabled");
    expect(run.stdout).toMatch(
      /binary_sensor\s+Busy\s+homeassistant\/binary_sensor\/.+\/busy\/config/,
    );
  });

  it("says not running, hides the password, and doctor names the unreachable broker", async () => {
    const port = await freePort();
    const url = `mqtt://ha:pw-hidden-123@127.0.0.1:${port}`;
    const home = homeWith({
      mqtt: { enabled: true, url, username: "ha", password: "pw-hidden-456", nodeId: "box1" },
    });
    const run = await runCli(["mqtt", "status", "--json"], { CLAWBOX_HOME: home });
    expect(JSON.parse(run.stdout)).toMatchObject({
      enabled: true,
      state: "not running",
      broker: `mqtt://127.0.0.1:${port}`,
      baseTopic: "clawbox/box1",
      sessionKey: "agent:main:mqtt:direct:home-assistant",
    });
    expect(run.stdout).not.toContain("pw-hidden");
    const doctor = await runCli(["doctor", "--json"], { CLAWBOX_HOME: home });
    expect(doctor.code).toBe(1);
    const checks = (JSON.parse(doctor.stdout) as { checks: Record<string, string>[] }).checks;
    const broker = checks.find((c) => c.name === "mqtt broker");
    expect(broker).toMatchObject({ status: "fail" });
    expect(broker?.message).toContain(`mqtt://127.0.0.1:${port}`);
    expect(doctor.stdout).not.toContain("pw-hidden");
  });

  it("rejects a password without a username in the config check", async () => {
    const home = homeWith({ mqtt: { enabled: true, password: "x" } });
    const run = await runCli(["config", "check"], { CLAWBOX_HOME: home });
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain("mqtt.username");
  });
});
