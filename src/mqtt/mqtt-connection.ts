/**
 * The broker connection: loads the `mqtt` package on first use (never before READY),
 * connects with a retained `offline` last will on the availability topic, and
 * reconnects with exponential backoff (initial → doubled per failed attempt → max,
 * back to initial after a successful connect). Connection errors are reported through
 * `onState`, never thrown: a broker that is down must not stop the box.
 */
import { readFileSync } from "node:fs";
import type { IClientOptions, IStore, MqttClient } from "mqtt";

type IMessageIdProvider = NonNullable<IClientOptions["messageIdProvider"]>;

import type { MqttConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import { clockHint } from "../system/index.ts";
import { displayUrl } from "./topic-layout.ts";

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, maxMs: 60_000 };

export interface ConnectionHandlers {
  onConnect(): void;
  onState(state: "reconnecting" | "disconnected", error?: string): void;
  /**
   * Runs synchronously before mqtt.js acknowledges the message (PUBACK), so what it
   * stores in SQLite is stored before the broker forgets the message.
   */
  onMessage(topic: string, payload: Buffer, packet: { messageId?: number; dup: boolean }): void;
}

/** The session kept across restarts: the outgoing store and its packet-id reservations. */
export interface DurableSession {
  outgoingStore: IStore;
  messageIdProvider(unique: IMessageIdProvider): IMessageIdProvider;
}

export interface ConnectionInput {
  config: MqttConfig;
  clientId: string;
  availabilityTopic: string;
  backoff: Backoff;
  handlers: ConnectionHandlers;
  session: DurableSession;
}

/** Error text without the broker's credentials (mqtt.js may echo the URL). */
export function plainConnectionError(error: unknown, url: string): string {
  const text = errorMessage(error);
  const clock = clockHint(error);
  return `${text.split(url).join(displayUrl(url))}${clock ? ` (${clock})` : ""}`;
}

/** Host, port and TLS of the broker URL; credentials in the URL are used when the config has none. */
function brokerAddress(config: MqttConfig) {
  const url = new URL(config.url);
  const secure = url.protocol === "mqtts:" || url.protocol === "ssl:";
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port ? Number(url.port) : secure ? 8883 : 1883,
    secure,
    username: config.username ?? (url.username ? decodeURIComponent(url.username) : undefined),
    password: config.password ?? (url.password ? decodeURIComponent(url.password) : undefined),
  };
}

/**
 * An mqtt.js client over a socket we open ourselves (node:net, or node:tls for mqtts://).
 * Building the client this way, rather than with mqtt.connect(url), keeps mqtt.js from
 * loading its WebSocket, SOCKS and url.parse paths; with `writeCache: false` it does not
 * pre-build 65,536 packet-id buffers. Together ≈ 9 MB less RSS (docs/BENCHMARKS.md).
 */
export async function createMqttClient(
  config: MqttConfig,
  options: IClientOptions,
): Promise<MqttClient> {
  const { MqttClient } = await import("mqtt");
  const address = brokerAddress(config);
  const ca = config.ca ? readFileSync(config.ca) : undefined;
  const tls = address.secure ? await import("node:tls") : undefined;
  const net = await import("node:net");
  const open = () =>
    tls
      ? tls.connect({
          host: address.host,
          port: address.port,
          // SNI takes host names only; node refuses an IP address there.
          ...(net.isIP(address.host) === 0 ? { servername: address.host } : {}),
          rejectUnauthorized: config.rejectUnauthorized,
          ...(ca ? { ca } : {}),
        })
      : net.connect({ host: address.host, port: address.port });
  return new MqttClient(open, {
    protocolVersion: 4,
    writeCache: false,
    ...(address.username ? { username: address.username } : {}),
    ...(address.password ? { password: address.password } : {}),
    ...options,
  });
}

export async function openConnection(input: ConnectionInput): Promise<MqttClient> {
  const { UniqueMessageIdProvider } = await import("mqtt");
  const client = await createMqttClient(input.config, {
    clientId: input.clientId,
    // A persistent session: the broker keeps prompts (QoS 1) sent while the box is down
    // or restarting, and the QoS 2 packet ids of replies in flight (reply-store.ts).
    clean: false,
    outgoingStore: input.session.outgoingStore,
    messageIdProvider: input.session.messageIdProvider(new UniqueMessageIdProvider()),
    keepalive: 30,
    connectTimeout: 10_000,
    reconnectPeriod: input.backoff.initialMs,
    // Subscriptions are made again in onConnect; mqtt.js must not double them.
    resubscribe: false,
    will: { topic: input.availabilityTopic, payload: Buffer.from("offline"), qos: 1, retain: true },
  });
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
  client.on("message", (topic, payload, packet) =>
    input.handlers.onMessage(topic, payload, { messageId: packet.messageId, dup: packet.dup }),
  );
  return client;
}
