/**
 * What `clawbox mqtt status` (and `channels status`) shows: the broker and topics from
 * the config, the connection state from the running service's status file, and the
 * discovery entities. Works whether or not `clawbox run` is running; never shows a
 * password.
 */
import type { AgentConfig, ModelsConfig, MqttConfig } from "../config/index.ts";
import { createSessionResolver } from "../sessions/index.ts";
import type { MqttBridgeStatus } from "./bridge-status.ts";
import { readStatusFile, statusFilePath } from "./bridge-status.ts";
import { type Component, discoveryEntities } from "./discovery.ts";
import { displayUrl, topicLayout } from "./topic-layout.ts";

export interface MqttReport {
  enabled: boolean;
  broker: string;
  clientId: string;
  nodeId: string;
  baseTopic: string;
  discoveryPrefix: string;
  availabilityTopic: string;
  promptTopic: string;
  eventTopic: string;
  sessionKey: string;
  /** "disabled", "not running" (no live `clawbox run`), or the live connection state. */
  state: "disabled" | "not running" | MqttBridgeStatus["state"];
  since?: number;
  lastError?: string;
  connects?: number;
  busy?: boolean;
  prompts?: MqttBridgeStatus["prompts"];
  discoveryPublishedAt?: number;
  lastMessageAt?: number;
  removed: string[];
  entities: { component: Component; objectId: string; name: string; topic: string }[];
}

/** The sections a report reads (the whole config has this shape). */
export interface MqttReportConfig {
  mqtt: MqttConfig;
  models: Pick<ModelsConfig, "providers">;
  agent: AgentConfig;
}

export function mqttReport(config: MqttReportConfig, home: string, version = ""): MqttReport {
  const mqtt = config.mqtt;
  const topics = topicLayout(mqtt);
  const entities = discoveryEntities({
    topics,
    version,
    modelIds: Object.keys(config.models.providers),
  }).map((e) => ({
    component: e.component,
    objectId: e.objectId,
    name: String(e.config.name),
    topic: e.topic,
  }));
  const live = mqtt.enabled ? readStatusFile(statusFilePath(home)) : undefined;
  const status = live?.running ? live.status : undefined;
  return {
    enabled: mqtt.enabled,
    broker: displayUrl(mqtt.url),
    clientId: mqtt.clientId ?? `clawbox-${topics.nodeId}`,
    nodeId: topics.nodeId,
    baseTopic: topics.baseTopic,
    discoveryPrefix: topics.discoveryPrefix,
    availabilityTopic: topics.availability,
    promptTopic: topics.prompt,
    eventTopic: topics.event,
    sessionKey:
      mqtt.sessionKey ?? createSessionResolver(config.agent).defaultSession("mqtt", false),
    state: !mqtt.enabled ? "disabled" : status ? status.state : "not running",
    ...(status
      ? {
          since: status.since,
          connects: status.connects,
          busy: status.busy,
          prompts: status.prompts,
          ...(status.lastError ? { lastError: status.lastError } : {}),
          ...(status.discoveryPublishedAt
            ? { discoveryPublishedAt: status.discoveryPublishedAt }
            : {}),
          ...(status.lastMessageAt ? { lastMessageAt: status.lastMessageAt } : {}),
        }
      : {}),
    removed: status?.removed ?? [],
    entities,
  };
}

/** Human-readable lines for `clawbox mqtt status`. */
export function formatMqttReport(report: MqttReport): string {
  const lines = [
    `MQTT bridge: ${report.enabled ? "enabled" : "disabled (set mqtt.enabled: true)"}`,
    `broker:      ${report.broker} (client id ${report.clientId})`,
    `state:       ${report.state}${report.since ? ` since ${new Date(report.since).toISOString()}` : ""}`,
  ];
  if (report.lastError) lines.push(`last error:  ${report.lastError}`);
  if (report.prompts) {
    const p = report.prompts;
    lines.push(
      `prompts:     ${p.received} received, ${p.replied} replied, ${p.failed} failed, ${p.rejected} rejected${report.busy ? " (busy now)" : ""}`,
    );
  }
  lines.push(
    `topics:      prompt ${report.promptTopic}, events ${report.eventTopic}, availability ${report.availabilityTopic}`,
    `session:     ${report.sessionKey}`,
    `entities (${report.entities.length}, discovery prefix ${report.discoveryPrefix}, node ${report.nodeId}):`,
    ...report.entities.map((e) => `  ${e.component.padEnd(13)} ${e.name.padEnd(12)} ${e.topic}`),
  );
  if (report.removed.length > 0) lines.push(`removed stale entities: ${report.removed.join(", ")}`);
  return `${lines.join("\n")}\n`;
}

/** The bridge as one row of `clawbox channels status` (same fields as the channels' rows). */
export function mqttChannelStatus(
  config: MqttReportConfig,
  home: string,
): {
  channel: "mqtt";
  enabled: boolean;
  state: "connected" | "resuming" | "disabled" | "stopped" | "error";
  reason?: string;
  lastEventAt?: number;
  inbox: Record<string, number>;
  outbox: Record<string, number>;
} {
  const report = mqttReport(config, home);
  // The bridge keeps no inbox/outbox tables: its prompt counts (the ones `clawbox mqtt
  // status` shows) stand in, so the two commands agree.
  const p = report.prompts;
  const nonZero = (counts: Record<string, number>) =>
    Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
  const base = {
    channel: "mqtt" as const,
    enabled: report.enabled,
    inbox: p ? nonZero({ received: p.received, rejected: p.rejected }) : {},
    outbox: p ? nonZero({ replied: p.replied, failed: p.failed }) : {},
    ...(report.lastMessageAt ? { lastEventAt: report.lastMessageAt } : {}),
  };
  switch (report.state) {
    case "disabled":
      return { ...base, state: "disabled", reason: "mqtt.enabled is false" };
    case "not running":
    case "stopped":
      return { ...base, state: "stopped", reason: "clawbox run is not running" };
    case "connected":
      return { ...base, state: "connected", reason: report.broker };
    case "disconnected":
      return {
        ...base,
        state: "error",
        reason: `${report.broker}: ${report.lastError ?? "disconnected"}`,
      };
    default:
      return { ...base, state: "resuming", reason: `${report.state} to ${report.broker}` };
  }
}
