/**
 * `clawbox doctor` lines for the MQTT bridge: the CA file, a real connection to the
 * broker (with its own client id, so the running service is not kicked off), and the
 * running service's connection state. Disabled bridges get one `ok` line.
 */
import { accessSync, constants } from "node:fs";
import type { MqttConfig } from "../config/index.ts";
import type { CheckResult } from "../doctor/index.ts";
import { readStatusFile, statusFilePath } from "./bridge-status.ts";
import { probeBroker } from "./probe-broker.ts";
import { displayUrl } from "./topic-layout.ts";

export async function mqttDoctorChecks(
  mqtt: MqttConfig,
  home: string,
  timeoutMs = 3000,
): Promise<CheckResult[]> {
  if (!mqtt.enabled) return [{ name: "mqtt", status: "ok", message: "disabled" }];
  const broker = displayUrl(mqtt.url);
  const checks: CheckResult[] = [];
  if (mqtt.ca) {
    try {
      accessSync(mqtt.ca, constants.R_OK);
    } catch {
      checks.push({
        name: "mqtt ca",
        status: "fail",
        message: `mqtt.ca: cannot read ${mqtt.ca}`,
        fix: "point mqtt.ca at the PEM file of your broker's CA",
      });
      return checks;
    }
  }
  const probe = await probeBroker(mqtt, timeoutMs, "doctor");
  if (probe.ok) {
    checks.push({ name: "mqtt broker", status: "ok", message: `${broker} accepts a connection` });
  } else {
    checks.push({
      name: "mqtt broker",
      status: "fail",
      message: `${broker}: ${probe.message}`,
      fix: "start the broker (e.g. the Mosquitto add-on in Home Assistant) or fix mqtt.url, mqtt.username and mqtt.password",
    });
  }
  const live = readStatusFile(statusFilePath(home));
  if (!live?.running) {
    checks.push({
      name: "mqtt bridge",
      status: "warn",
      message: "clawbox run is not running, so Home Assistant sees the box as unavailable",
      fix: "start the service: systemctl start clawbox",
    });
  } else if (live.status.state !== "connected") {
    checks.push({
      name: "mqtt bridge",
      status: "warn",
      message: `the service is ${live.status.state}${live.status.lastError ? `: ${live.status.lastError}` : ""}`,
      fix: "check the broker and the service log (journalctl -u clawbox)",
    });
  } else {
    checks.push({
      name: "mqtt bridge",
      status: "ok",
      message: `connected since ${new Date(live.status.since).toISOString()}, ${live.status.entities.length} entities published`,
    });
  }
  return checks;
}
