/**
 * The Home Assistant bridge over MQTT (issue 13). Key names are a contract with users'
 * config files: `enabled`, `url`, `username`, `password`, `clientId`, `discoveryPrefix`,
 * `nodeId`, `baseTopic`. `nodeId` and `baseTopic` default at runtime (from the hostname),
 * so they stay optional here.
 */
import * as z from "zod";

/** Topic segments Home Assistant accepts in discovery ids. */
const topicId = z.string().regex(/^[a-zA-Z0-9_-]+$/, "use only letters, digits, _ and -");
/** A topic prefix without wildcards, leading or trailing slash. */
const topicPrefix = z
  .string()
  .min(1)
  .regex(/^[^#+/](?:[^#+]*[^#+/])?$/, "no wildcards (+ #) and no leading or trailing /");

export const mqttSection = z
  .object({
    enabled: z.boolean().default(false),
    /** Broker URL: mqtt://host:1883 or mqtts://host:8883 (TLS; see `ca`). */
    url: z
      .string()
      .regex(
        /^(mqtt|mqtts|tcp|ssl):\/\/[^\s/]+\/?$/,
        "expected mqtt://host:port or mqtts://host:port",
      )
      .default("mqtt://127.0.0.1:1883"),
    username: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    /** MQTT client id; default `clawbox-<nodeId>`. */
    clientId: z.string().min(1).max(128).optional(),
    discoveryPrefix: topicPrefix.default("homeassistant"),
    /** Default: the hostname reduced to [a-zA-Z0-9_-]. */
    nodeId: topicId.optional(),
    /** Default: `clawbox/<nodeId>`. */
    baseTopic: topicPrefix.optional(),
    /** PEM file of the CA that signed the broker's certificate (mqtts:// / wss://). */
    ca: z.string().min(1).optional(),
    /** Verify the broker's certificate (default true). */
    rejectUnauthorized: z.boolean().default(true),
    /** Session for prompts without their own; default `agent:<agentId>:mqtt:direct:home-assistant`. */
    sessionKey: z.string().min(1).optional(),
  })
  // MQTT 3.1.1 §3.1.2.9: a password without a user name is a protocol error (the broker hangs up).
  .refine((mqtt) => !mqtt.password || mqtt.username, {
    message: "a password needs a username as well",
    path: ["username"],
  })
  .default({
    enabled: false,
    url: "mqtt://127.0.0.1:1883",
    discoveryPrefix: "homeassistant",
    rejectUnauthorized: true,
  });

export type MqttConfig = z.infer<typeof mqttSection>;
