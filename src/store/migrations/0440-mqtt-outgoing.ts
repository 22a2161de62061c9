import type { Migration } from "./migration.ts";

/**
 * The MQTT bridge's replies in flight (issue 27): each reply event is kept here, with the
 * MQTT packet (PUBLISH, later PUBREL) of its QoS 2 exchange, from the moment it is handed
 * to the client until the broker's PUBCOMP. After a crash or power cut the client sends
 * them again with the same packet ids, and the broker, which remembers QoS 2 packet ids
 * of the box's persistent session, delivers each exactly once.
 */
export const mqttOutgoing: Migration = {
  version: 440,
  name: "mqtt replies in flight",
  sql: `
CREATE TABLE mqtt_outgoing (
  message_id INTEGER PRIMARY KEY,
  packet     TEXT NOT NULL,
  inbox_id   INTEGER,
  stored_at  INTEGER NOT NULL
);
`,
};
