/**
 * Home Assistant MQTT discovery for the box: one device with a prompt `text`, a status
 * and a last-reply `sensor`, a reply `event`, `button`s for a new session and
 * compaction, a model `select` and a busy `binary_sensor`. Field names follow Home
 * Assistant's MQTT integration docs (home-assistant.io/integrations/<component>.mqtt/ and
 * /integrations/mqtt/#mqtt-discovery). Nothing here may carry a secret: configs are
 * retained on the broker for anyone subscribed to read.
 */
import type { TopicLayout } from "./topic-layout.ts";

export type Component = "text" | "sensor" | "event" | "button" | "select" | "binary_sensor";

export interface DiscoveryEntity {
  component: Component;
  objectId: string;
  /** `<prefix>/<component>/<nodeId>/<objectId>/config` */
  topic: string;
  config: Record<string, unknown>;
}

export interface DiscoveryInput {
  topics: TopicLayout;
  version: string;
  /** Options of the model select: the configured provider ids. */
  modelIds: string[];
}

export const STATUS_VALUES = ["idle", "thinking", "error"] as const;
export type BridgeStatus = (typeof STATUS_VALUES)[number];
/** `notify`: a reminder, follow-up or heartbeat result for Home Assistant as an owner. */
export const EVENT_TYPES = ["reply", "error", "notify"] as const;
/** Home Assistant keeps at most 255 characters in an entity state. */
export const HA_STATE_MAX = 255;

/** The `identifiers` entry that marks a discovery config as this box's. */
export function deviceIdentifier(nodeId: string): string {
  return `clawbox_${nodeId}`;
}

export function discoveryEntities(input: DiscoveryInput): DiscoveryEntity[] {
  const { topics, version } = input;
  const shared = {
    availability_topic: topics.availability,
    payload_available: "online",
    payload_not_available: "offline",
    device: {
      identifiers: [deviceIdentifier(topics.nodeId)],
      name: `Clawbox ${topics.nodeId}`,
      model: "clawbox",
      manufacturer: "clawbox",
      sw_version: version,
    },
    origin: { name: "clawbox", sw_version: version },
  };
  const entity = (
    component: Component,
    objectId: string,
    name: string,
    fields: Record<string, unknown>,
  ): DiscoveryEntity => ({
    component,
    objectId,
    topic: `${topics.discoveryPrefix}/${component}/${topics.nodeId}/${objectId}/config`,
    config: {
      name,
      unique_id: `${deviceIdentifier(topics.nodeId)}_${objectId}`,
      ...fields,
      ...shared,
    },
  });
  return [
    entity("text", "prompt", "Prompt", {
      command_topic: topics.prompt,
      // QoS 1: the broker keeps a prompt for the box's persistent session while it is away.
      qos: 1,
      mode: "text",
      min: 0,
      max: HA_STATE_MAX,
      icon: "mdi:message-text",
    }),
    entity("sensor", "status", "Status", {
      state_topic: topics.status,
      json_attributes_topic: topics.statusAttributes,
      device_class: "enum",
      options: [...STATUS_VALUES],
      icon: "mdi:robot",
    }),
    entity("sensor", "last_reply", "Last reply", {
      state_topic: topics.reply,
      json_attributes_topic: topics.replyAttributes,
      icon: "mdi:message-reply-text",
    }),
    entity("event", "reply", "Reply", {
      state_topic: topics.event,
      // Replies are published at QoS 2, exactly once to the broker (reply-store.ts).
      qos: 2,
      event_types: [...EVENT_TYPES],
      icon: "mdi:message-flash",
    }),
    entity("button", "new_session", "New session", {
      command_topic: topics.newSession,
      payload_press: "PRESS",
      icon: "mdi:restart",
    }),
    entity("button", "compact", "Compact", {
      command_topic: topics.compact,
      payload_press: "PRESS",
      icon: "mdi:arrow-collapse-vertical",
    }),
    // Home Assistant rejects a select without options: no models configured, no select.
    ...(input.modelIds.length > 0
      ? [
          entity("select", "model", "Model", {
            command_topic: topics.modelSet,
            state_topic: topics.model,
            options: input.modelIds,
            icon: "mdi:brain",
          }),
        ]
      : []),
    entity("binary_sensor", "busy", "Busy", {
      state_topic: topics.busy,
      payload_on: "ON",
      payload_off: "OFF",
      device_class: "running",
    }),
  ];
}

/** Discovery topics of this node that the broker may still hold from an older version. */
export function discoveryWildcard(topics: TopicLayout): string {
  return `${topics.discoveryPrefix}/+/${topics.nodeId}/+/config`;
}
