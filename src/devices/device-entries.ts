/**
 * The box's cameras and SSH hosts: the workspace TOOLS.md entries, merged with config
 * `tools.cameras` / `tools.ssh` (a config entry with the same name overrides field by
 * field, `enabled: false` removes it, a new name adds one). Limits that widen what a
 * tool may do (command allowlists, opening a host to non-owners) come from the config
 * only: the agent can edit TOOLS.md, and must not be able to widen its own limits.
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { ToolsConfig } from "../config/index.ts";
import { parseToolsMd } from "../workspace/index.ts";

export type CameraSource = "http" | "rtsp" | "v4l2" | "rpicam";

export interface Camera {
  name: string;
  source: CameraSource;
  url?: string;
  device?: string;
  description?: string;
  username?: string;
  passwordEnv?: string;
  tokenEnv?: string;
  timeoutMs: number;
  maxBytes: number;
}

export interface SshHost {
  name: string;
  host: string;
  user: string;
  port: number;
  keyFile?: string;
  description?: string;
  allowCommands?: string[];
  ownerOnly: boolean;
}

export interface Devices {
  cameras: Camera[];
  sshHosts: SshHost[];
  /** Entries that were left out, with why ("TOOLS.md line 12: camera porch: ..."). */
  issues: string[];
}

function sourceOf(entry: {
  source?: CameraSource;
  url?: string;
  device?: string;
}): CameraSource | undefined {
  if (entry.source) return entry.source;
  if (entry.url?.startsWith("rtsp")) return "rtsp";
  if (entry.url) return "http";
  if (entry.device) return "v4l2";
  return undefined;
}

const defined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;

export function resolveDevices(toolsMdText: string, tools: ToolsConfig, home: string): Devices {
  const parsed = parseToolsMd(toolsMdText);
  const issues = parsed.issues.map((i) => i.message);
  const limits = tools.devices;

  const cameraNames = new Set([
    ...parsed.cameras.map((c) => c.name),
    ...Object.keys(tools.cameras),
  ]);
  const cameras: Camera[] = [];
  for (const name of cameraNames) {
    const fromMd = parsed.cameras.find((c) => c.name === name);
    const override = tools.cameras[name];
    if (override?.enabled === false) continue;
    const merged = { ...(fromMd ? defined(fromMd) : {}), ...(override ? defined(override) : {}) };
    const source = sourceOf(merged);
    if (!source || (source !== "rpicam" && source !== "v4l2" && !merged.url)) {
      issues.push(`camera ${name}: needs a url, a device or source: rpicam`);
      continue;
    }
    cameras.push({
      name,
      source,
      ...(merged.url ? { url: merged.url } : {}),
      ...(merged.device
        ? { device: merged.device }
        : source === "v4l2"
          ? { device: "/dev/video0" }
          : {}),
      ...(merged.description ? { description: merged.description } : {}),
      ...(merged.username ? { username: merged.username } : {}),
      ...(merged.passwordEnv ? { passwordEnv: merged.passwordEnv } : {}),
      ...(merged.tokenEnv ? { tokenEnv: merged.tokenEnv } : {}),
      timeoutMs: override?.timeoutMs ?? limits.timeoutMs,
      maxBytes: override?.maxBytes ?? limits.maxImageBytes,
    });
  }

  const hostNames = new Set([...parsed.sshHosts.map((h) => h.name), ...Object.keys(tools.ssh)]);
  const sshHosts: SshHost[] = [];
  for (const name of hostNames) {
    const fromMd = parsed.sshHosts.find((h) => h.name === name);
    const override = tools.ssh[name];
    if (override?.enabled === false) continue;
    const host = override?.host ?? fromMd?.host;
    if (!host) {
      issues.push(`ssh host ${name}: needs a host`);
      continue;
    }
    if (!/^[A-Za-z0-9._:-]+$/.test(host) || host.startsWith("-")) {
      issues.push(`ssh host ${name}: "${host}" is not a host name or address`);
      continue;
    }
    const keyFile = override?.keyFile ?? fromMd?.keyFile;
    sshHosts.push({
      name,
      host,
      user: override?.user ?? fromMd?.user ?? "root",
      port: override?.port ?? fromMd?.port ?? 22,
      ...(keyFile ? { keyFile: isAbsolute(keyFile) ? keyFile : join(home, "ssh", keyFile) } : {}),
      ...((override?.description ?? fromMd?.description)
        ? { description: override?.description ?? fromMd?.description }
        : {}),
      ...(override?.allowCommands ? { allowCommands: override.allowCommands } : {}),
      ownerOnly: override?.ownerOnly ?? true,
    });
  }
  return { cameras, sshHosts, issues };
}

/** Re-reads TOOLS.md only when its mtime or size changed. */
export function createDeviceSource(workspace: string, tools: ToolsConfig, home: string) {
  const file = join(workspace, "TOOLS.md");
  let key = "";
  let cached: Devices = { cameras: [], sshHosts: [], issues: [] };
  return (): Devices => {
    let text = "";
    let stamp = "missing";
    try {
      const st = statSync(file);
      stamp = `${st.mtimeMs}:${st.size}`;
      if (stamp !== key) text = readFileSync(file, "utf8");
    } catch {
      // no TOOLS.md: config entries only
    }
    if (stamp !== key) {
      cached = resolveDevices(text, tools, home);
      key = stamp;
    }
    return cached;
  };
}
