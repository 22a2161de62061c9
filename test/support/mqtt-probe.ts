/**
 * A test client that plays Home Assistant on a real broker: subscribes to topics,
 * records every message (retained flag included), waits for the one a test expects,
 * and publishes prompts and button presses.
 */
import { connectAsync, type MqttClient } from "mqtt";

export interface ProbeMessage {
  topic: string;
  payload: Buffer;
  retain: boolean;
  text: string;
}

export interface MqttProbe {
  client: MqttClient;
  messages: ProbeMessage[];
  /** Resolves with the first message (from `since` on) that matches; rejects after `timeoutMs`. */
  waitFor(
    match: (m: ProbeMessage) => boolean,
    options?: { since?: number; timeoutMs?: number },
  ): Promise<ProbeMessage>;
  /** Messages on `topic` so far. */
  on(topic: string): ProbeMessage[];
  publish(topic: string, payload: string | Buffer, retain?: boolean): Promise<void>;
  /** Parsed JSON payloads of events on `topic` received since index `since`. */
  json(m: ProbeMessage): Record<string, unknown>;
  close(): Promise<void>;
}

export async function startProbe(url: string, subscriptions: string[]): Promise<MqttProbe> {
  const client = await connectAsync(url, {
    clientId: `probe-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    reconnectPeriod: 0,
  });
  const messages: ProbeMessage[] = [];
  const waiters = new Set<() => void>();
  client.on("message", (topic, payload, packet) => {
    messages.push({ topic, payload, retain: packet.retain, text: payload.toString("utf8") });
    for (const wake of waiters) wake();
  });
  await client.subscribeAsync(subscriptions, { qos: 1 });
  return {
    client,
    messages,
    waitFor(match, options = {}) {
      const since = options.since ?? 0;
      const timeoutMs = options.timeoutMs ?? 10_000;
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = messages.slice(since).find(match);
          if (!hit) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching MQTT message within ${timeoutMs} ms; got:\n${messages
                .slice(since)
                .map((m) => `${m.topic} ${m.text.slice(0, 200)}`)
                .join("\n")}`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    on: (topic) => messages.filter((m) => m.topic === topic),
    async publish(topic, payload, retain = false) {
      await client.publishAsync(topic, payload, { qos: 1, retain });
    },
    json: (m) => JSON.parse(m.text) as Record<string, unknown>,
    async close() {
      await client.endAsync(true);
    },
  };
}
