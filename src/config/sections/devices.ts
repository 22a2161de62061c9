/**
 * `tools.cameras` and `tools.ssh`: the config side of the device tools. Entries add to
 * the workspace TOOLS.md entries of the same kind, override one with the same name
 * field by field, or remove it (`enabled: false`). Secrets are never written here:
 * passwords and tokens are named by environment variable (`passwordEnv`, `tokenEnv`).
 */
import * as z from "zod";

const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name");

export const cameraConfig = z.object({
  enabled: z.boolean().default(true),
  /** Default: from the URL scheme (http/https, rtsp) or `device` (v4l2). */
  source: z.enum(["http", "rtsp", "v4l2", "rpicam"]).optional(),
  url: z
    .string()
    .regex(/^(https?|rtsps?):\/\/\S+$/, "an http(s):// or rtsp:// URL")
    .optional(),
  /** V4L2 device for USB cameras, e.g. /dev/video0. */
  device: z.string().startsWith("/dev/").optional(),
  description: z.string().optional(),
  username: z.string().optional(),
  passwordEnv: envName.optional(),
  /** Bearer token for HTTP snapshot URLs (e.g. a Home Assistant long-lived token). */
  tokenEnv: envName.optional(),
  timeoutMs: z.number().int().min(500).max(120_000).optional(),
  /** Largest raw frame accepted, bytes. */
  maxBytes: z.number().int().min(1024).optional(),
});

export const sshHostConfig = z.object({
  enabled: z.boolean().default(true),
  host: z.string().min(1).optional(),
  user: z.string().min(1).optional(),
  port: z.number().int().min(1).max(65535).optional(),
  /** Private key file; relative paths are under `<home>/ssh/`. */
  keyFile: z.string().min(1).optional(),
  description: z.string().optional(),
  /** When set, only commands whose first words match one of these run (e.g. "uptime", "systemctl status *"). */
  allowCommands: z.array(z.string().min(1)).optional(),
  /** Owner-only unless explicitly opened to everyone who may see the tool. */
  ownerOnly: z.boolean().default(true),
});

export const devicesDefaults = z
  .object({
    timeoutMs: z.number().int().min(500).max(600_000).default(15_000),
    maxOutputChars: z.number().int().min(100).default(20_000),
    /** Raw camera frame cap in bytes before scaling. */
    maxImageBytes: z
      .number()
      .int()
      .min(1024)
      .default(15 * 1024 * 1024),
    /** known_hosts for ssh_exec; default `<home>/ssh/known_hosts`. */
    knownHostsFile: z.string().min(1).optional(),
  })
  .prefault({});

export const camerasConfig = z.record(z.string().regex(/^[A-Za-z0-9_-]+$/), cameraConfig);
export const sshHostsConfig = z.record(z.string().regex(/^[A-Za-z0-9_-]+$/), sshHostConfig);

export type CameraConfig = z.infer<typeof cameraConfig>;
export type SshHostConfig = z.infer<typeof sshHostConfig>;
export type DevicesDefaults = z.infer<typeof devicesDefaults>;
