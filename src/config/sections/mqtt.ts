/**
 * The Home Assistant bridge over MQTT (issue 13). Key names are a contract with users'
 * config files: `enabled`, `url`, `username`, `password`, `clientId`, `discoveryPrefix`,
 * `nodeId`, `baseTopic`. `nodeId` and `baseTopic` default at runtime (from the hostname),
 * so they stay optional here.
 */
import { z } from "../../schema/index.ts";

const nonEmpty = z.string().check(z.minLength(1));
/** Topic segments Home Assistant accepts in discovery ids. */
const topicId = z
  .string()
  .check(z.regex(/^[a-zA-Z0-9_-]+$/, "must use only letters, digits, _ and -"));
/** A topic prefix without wildcards, leading or trailing slash. */
const topicPrefix = z
  .string()
  .check(
    z.minLength(1),
    z.regex(
      /^[^#+/](?:[^#+]*[^#+/])?$/,
      "must have no wildcards (+ #) and no leading or trailing /",
    ),
  );

/** Broker URL: mqtt://host:1883 or mqtts://host:8883 (TLS; see `ca`). */
const brokerUrl = z
  .string()
  .check(
    z.regex(
      /^(mqtt|mqtts|tcp|ssl):\/\/[^\s/]+\/?$/,
      "must be mqtt://host:port or mqtts://host:port",
    ),
  );

export const mqttSection = z._default(
  z
    .object({
      enabled: z._default(z.boolean(), false),
      /** Broker URL; see `ca` for TLS. */
      url: z._default(brokerUrl, "mqtt://127.0.0.1:1883"),
      username: z.optional(nonEmpty),
      password: z.optional(nonEmpty),
      /** MQTT client id; default `clawbox-<nodeId>`. */
      clientId: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
      discoveryPrefix: z._default(topicPrefix, "homeassistant"),
      /** Default: the hostname reduced to [a-zA-Z0-9_-]. */
      nodeId: z.optional(topicId),
      /** Default: `clawbox/<nodeId>`. */
      baseTopic: z.optional(topicPrefix),
      /** PEM file of the CA that signed the broker's certificate (mqtts:// / wss://). */
      ca: z.optional(nonEmpty),
      /** Verify the broker's certificate (default true). */
      rejectUnauthorized: z._default(z.boolean(), true),
      /** Session for prompts without their own; default `agent:<agentId>:mqtt:direct:home-assistant`. */
      sessionKey: z.optional(nonEmpty),
    })
    .check(
      // MQTT 3.1.1 §3.1.2.9: a password without a user name is a protocol error (the broker hangs up).
      z.refine((mqtt) => !mqtt.password || mqtt.username, {
        message: "a password needs a username as well",
        path: ["username"],
      }),
    ),
  {
    enabled: false,
    url: "mqtt://127.0.0.1:1883",
    discoveryPrefix: "homeassistant",
    rejectUnauthorized: true,
  },
);

export type MqttConfig = z.infer<typeof mqttSection>;
