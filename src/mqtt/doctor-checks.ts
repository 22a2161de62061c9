/**
 * `clawbox doctor` lines for the MQTT bridge: the CA file, a real connection to the
 * broker (with its own client id, so the running service is not kicked off), and the
 * running service's connection state. Disabled bridges get one `ok` line.
 */
import { accessSync, constants } from "node:fs";
import type { ClawboxConfig } from "../config/index.ts";
import type { CheckResult } from "../doctor/index.ts";
import { readStatusFile, statusFilePath } from "./bridge-status.ts";
import { createMqttClient, plainConnectionError } from "./mqtt-connection.ts";
import { displayUrl, topicLayout } from "./topic-layout.ts";

export async function mqttDoctorChecks(
  config: ClawboxConfig,
  home: string,
  timeoutMs = 3000,
): Promise<CheckResult[]> {
  const mqtt = config.mqtt;
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
  const topics = topicLayout(mqtt);
  try {
    const client = await createMqttClient(mqtt, {
      clientId: `${mqtt.clientId ?? `clawbox-${topics.nodeId}`}-doctor-${process.pid}`,
      connectTimeout: timeoutMs,
      reconnectPeriod: 0,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        client.once("connect", () => resolve());
        client.once("error", reject);
        client.once("close", () => reject(new Error("the broker closed the connection")));
      });
    } finally {
      await client.endAsync(true);
    }
    checks.push({ name: "mqtt broker", status: "ok", message: `${broker} accepts a connection` });
  } catch (error) {
    checks.push({
      name: "mqtt broker",
      status: "fail",
      message: `${broker}: ${plainConnectionError(error, mqtt.url)}`,
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
