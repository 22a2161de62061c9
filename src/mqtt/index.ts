/**
 * Home Assistant over MQTT: the bridge (discovery, prompts in, replies out, exactly once
 * across crashes), its status file for the CLI and doctor, and the broker probe.
 */
export {
  CONNECTION_STATES,
  type ConnectionState,
  type MqttBridgeStatus,
  readStatusFile,
  statusFilePath,
} from "./bridge-status.ts";
export {
  type Component,
  type DiscoveryEntity,
  deviceIdentifier,
  discoveryEntities,
  EVENT_TYPES,
  HA_STATE_MAX,
  STATUS_VALUES,
} from "./discovery.ts";
export { mqttDoctorChecks } from "./doctor-checks.ts";
export { createMqttBridge, type MqttBridge, type MqttBridgeDeps } from "./mqtt-bridge.ts";
export {
  formatMqttReport,
  type MqttReport,
  mqttChannelStatus,
  mqttReport,
} from "./mqtt-report.ts";
export { MAX_PENDING_TURNS, MQTT_SENDER_ID } from "./mqtt-turns.ts";
export { type BrokerProbe, probeBroker } from "./probe-broker.ts";
export { MAX_PROMPT_BYTES, type PromptPayload, parsePromptPayload } from "./prompt-payload.ts";
export { displayUrl, nodeIdFromHostname, type TopicLayout, topicLayout } from "./topic-layout.ts";
