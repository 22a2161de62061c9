/**
 * The bridge's state as `clawbox mqtt status`, `doctor` and `channels status` see it.
 * `clawbox run` owns the connection, so it writes this snapshot to a small JSON file in
 * the home on every change (through the atomic writer); other commands read it and
 * check that the writing process is still alive. No secrets: the broker URL is stored
 * without credentials.
 */
import { join } from "node:path";
import { z } from "../schema/index.ts";
import { readStatusSnapshot, writeStatusSnapshot } from "../system/index.ts";

export const CONNECTION_STATES = [
  "connecting",
  "connected",
  "reconnecting",
  "disconnected",
  "stopped",
] as const;

const statusSchema = z.object({
  pid: z.number().check(z.int()),
  broker: z.string(),
  clientId: z.string(),
  state: z.enum(CONNECTION_STATES),
  since: z.number(),
  lastError: z.optional(z.string()),
  connects: z.number().check(z.int()),
  discoveryPublishedAt: z.optional(z.number()),
  /** Last message received from the broker on a subscribed topic. */
  lastMessageAt: z.optional(z.number()),
  entities: z.array(z.string()),
  removed: z.array(z.string()),
  busy: z.boolean(),
  prompts: z.object({
    received: z.number().check(z.int()),
    rejected: z.number().check(z.int()),
    replied: z.number().check(z.int()),
    failed: z.number().check(z.int()),
  }),
  updatedAt: z.number(),
});

export type MqttBridgeStatus = z.infer<typeof statusSchema>;
export type ConnectionState = (typeof CONNECTION_STATES)[number];

export function statusFilePath(home: string): string {
  return join(home, "mqtt-status.json");
}

export function writeStatusFile(path: string, status: MqttBridgeStatus): void {
  writeStatusSnapshot(path, status);
}

/**
 * The last snapshot, with `running` telling whether its writer is still alive (a
 * `kill -9`ed service leaves a snapshot saying "connected"). Undefined when no service
 * has written one, or when the file is unreadable.
 */
export function readStatusFile(
  path: string,
): { status: MqttBridgeStatus; running: boolean } | undefined {
  return readStatusSnapshot(path, statusSchema);
}
