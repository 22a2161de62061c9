/**
 * `tools.cameras` and `tools.ssh`: the config side of the device tools. Entries add to
 * the workspace TOOLS.md entries of the same kind, override one with the same name
 * field by field, or remove it (`enabled: false`). Secrets are never written here:
 * passwords and tokens are named by environment variable (`passwordEnv`, `tokenEnv`).
 */
import { z } from "../../schema/index.ts";

const envName = z
  .string()
  .check(z.regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name, like CAM_PASSWORD"));
const nonEmpty = z.string().check(z.minLength(1));
const enabledByDefault = z._default(z.boolean(), true);

export const cameraConfig = z.object({
  enabled: enabledByDefault,
  /** Default: from the URL scheme (http/https, rtsp) or `device` (v4l2). */
  source: z.optional(z.enum(["http", "rtsp", "v4l2", "rpicam"])),
  url: z.optional(
    z.string().check(z.regex(/^(https?|rtsps?):\/\/\S+$/, "must be an http(s):// or rtsp:// URL")),
  ),
  /** V4L2 device for USB cameras, e.g. /dev/video0. */
  device: z.optional(z.string().check(z.startsWith("/dev/"))),
  description: z.optional(z.string()),
  username: z.optional(z.string()),
  passwordEnv: z.optional(envName),
  /** Bearer token for HTTP snapshot URLs (e.g. a Home Assistant long-lived token). */
  tokenEnv: z.optional(envName),
  timeoutMs: z.optional(z.number().check(z.int(), z.minimum(500), z.maximum(120_000))),
  /** Largest raw frame accepted, bytes. */
  maxBytes: z.optional(z.number().check(z.int(), z.minimum(1024))),
});

export const sshHostConfig = z.object({
  enabled: enabledByDefault,
  host: z.optional(nonEmpty),
  user: z.optional(nonEmpty),
  port: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(65535))),
  /** Private key file; relative paths are under `<home>/ssh/`. */
  keyFile: z.optional(nonEmpty),
  description: z.optional(z.string()),
  /** When set, only commands whose first words match one of these run (e.g. "uptime", "systemctl status *"). */
  allowCommands: z.optional(z.array(nonEmpty)),
  /** Owner-only unless explicitly opened to everyone who may see the tool. */
  ownerOnly: z._default(z.boolean(), true),
});

export const devicesDefaults = z.prefault(
  z.object({
    timeoutMs: z._default(z.number().check(z.int(), z.minimum(500), z.maximum(600_000)), 15_000),
    maxOutputChars: z._default(z.number().check(z.int(), z.minimum(100)), 20_000),
    /** Raw camera frame cap in bytes before scaling. */
    maxImageBytes: z._default(z.number().check(z.int(), z.minimum(1024)), 15 * 1024 * 1024),
    /** known_hosts for ssh_exec; default `<home>/ssh/known_hosts`. */
    knownHostsFile: z.optional(nonEmpty),
  }),
  {},
);

const deviceName = z.string().check(z.regex(/^[A-Za-z0-9_-]+$/));
export const camerasConfig = z.record(deviceName, cameraConfig);
export const sshHostsConfig = z.record(deviceName, sshHostConfig);

export type CameraConfig = z.infer<typeof cameraConfig>;
export type SshHostConfig = z.infer<typeof sshHostConfig>;
export type DevicesDefaults = z.infer<typeof devicesDefaults>;
