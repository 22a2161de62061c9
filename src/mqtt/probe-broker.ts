/**
 * One real connection to the broker with the given settings and a client id of its own
 * (so the running bridge is not kicked off), closed at once: for `clawbox doctor` and the
 * console's Test button. Never throws; the failure comes back in plain words, without
 * the password.
 */
import type { MqttConfig } from "../config/index.ts";
import { ClawboxError } from "../errors/index.ts";
import { createMqttClient, plainConnectionError } from "./mqtt-connection.ts";
import { topicLayout } from "./topic-layout.ts";

export type BrokerProbe = { ok: true } | { ok: false; message: string };

export async function probeBroker(
  mqtt: MqttConfig,
  timeoutMs: number,
  purpose = "probe",
): Promise<BrokerProbe> {
  try {
    const client = await createMqttClient(mqtt, {
      clientId: `${mqtt.clientId ?? `clawbox-${topicLayout(mqtt).nodeId}`}-${purpose}-${process.pid}`,
      connectTimeout: timeoutMs,
      reconnectPeriod: 0,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        client.once("connect", () => resolve());
        client.once("error", reject);
        client.once("close", () =>
          reject(new ClawboxError("CHANNEL_NETWORK", "the broker closed the connection")),
        );
      });
    } finally {
      await client.endAsync(true);
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, message: plainConnectionError(error, mqtt.url) };
  }
}
