/**
 * The broker connection: loads the `mqtt` package on first use (never before READY),
 * connects with a retained `offline` last will on the availability topic, and
 * reconnects with exponential backoff (initial → doubled per failed attempt → max,
 * back to initial after a successful connect). Connection errors are reported through
 * `onState`, never thrown: a broker that is down must not stop the box.
 */
import { readFileSync } from "node:fs";
import type { IClientOptions, MqttClient } from "mqtt";
import type { MqttConfig } from "../config/index.ts";
import { displayUrl } from "./topic-layout.ts";

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, maxMs: 60_000 };

export interface ConnectionHandlers {
  onConnect(): void;
  onState(state: "reconnecting" | "disconnected", error?: string): void;
  onMessage(topic: string, payload: Buffer): void;
}

export interface ConnectionInput {
  config: MqttConfig;
  clientId: string;
  availabilityTopic: string;
  backoff: Backoff;
  handlers: ConnectionHandlers;
}

/** Error text without the broker's credentials (mqtt.js may echo the URL). */
export function plainConnectionError(error: unknown, url: string): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split(url).join(displayUrl(url));
}

export function clientOptions(input: ConnectionInput): IClientOptions {
  const { config } = input;
  return {
    clientId: input.clientId,
    ...(config.username ? { username: config.username } : {}),
    ...(config.password ? { password: config.password } : {}),
    clean: true,
    keepalive: 30,
    connectTimeout: 10_000,
    reconnectPeriod: input.backoff.initialMs,
    // Subscriptions are made again in onConnect; mqtt.js must not double them.
    resubscribe: false,
    will: { topic: input.availabilityTopic, payload: Buffer.from("offline"), qos: 1, retain: true },
    ...(config.ca ? { ca: readFileSync(config.ca) } : {}),
    rejectUnauthorized: config.rejectUnauthorized,
  };
}

export async function openConnection(input: ConnectionInput): Promise<MqttClient> {
  const { connect } = await import("mqtt");
  const client = connect(input.config.url, clientOptions(input));
  let lastError: string | undefined;
  client.on("connect", () => {
    client.options.reconnectPeriod = input.backoff.initialMs;
    lastError = undefined;
    input.handlers.onConnect();
  });
  client.on("reconnect", () => {
    input.handlers.onState("reconnecting", lastError);
    const next = Math.min(
      (client.options.reconnectPeriod ?? input.backoff.initialMs) * 2,
      input.backoff.maxMs,
    );
    client.options.reconnectPeriod = next;
  });
  client.on("error", (error) => {
    lastError = plainConnectionError(error, input.config.url);
  });
  client.on("close", () => {
    if (!client.disconnecting) input.handlers.onState("disconnected", lastError);
  });
  client.on("message", (topic, payload) => input.handlers.onMessage(topic, payload));
  return client;
}
