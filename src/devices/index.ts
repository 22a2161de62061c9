/**
 * Device tools from the workspace TOOLS.md and config: `camera_snapshot` and `ssh_exec`
 * (docs/TOOLS.md). Both are offered only when at least one device of their kind exists,
 * and re-read TOOLS.md when it changes. Image work (ffmpeg, jimp) loads on first use.
 */
import { join } from "node:path";
import type { ToolsConfig } from "../config/index.ts";
import type { AgentTool } from "../tools/index.ts";
import { createCameraSnapshotTool } from "./camera-snapshot-tool.ts";
import { createDeviceSource } from "./device-entries.ts";
import { createSshExecTool } from "./ssh-exec-tool.ts";

export { createCameraSnapshotTool } from "./camera-snapshot-tool.ts";
export { captureFrame } from "./camera-sources.ts";
export { type Camera, type Devices, resolveDevices, type SshHost } from "./device-entries.ts";
export { commandRefusal, createSshExecTool, sshArguments } from "./ssh-exec-tool.ts";

export interface DeviceToolsOptions {
  tools: ToolsConfig;
  home: string;
  workspace: string;
  /** The model accepts images (camera snapshots are returned as image content). */
  vision?: () => boolean;
}

/** For the agent's `dynamicTools`: the device tools as TOOLS.md and config describe them now. */
export function createDeviceTools(options: DeviceToolsOptions): () => AgentTool[] {
  const devices = createDeviceSource(options.workspace, options.tools, options.home);
  const knownHostsFile =
    options.tools.devices.knownHostsFile ?? join(options.home, "ssh", "known_hosts");
  let last: { devices: unknown; tools: AgentTool[] } | undefined;
  return () => {
    const current = devices();
    if (last?.devices === current) return last.tools;
    const tools: AgentTool[] = [];
    if (current.cameras.length > 0)
      tools.push(
        createCameraSnapshotTool(current, {
          workspace: options.workspace,
          vision: options.vision ?? (() => false),
        }),
      );
    if (current.sshHosts.length > 0)
      tools.push(
        createSshExecTool(current, {
          timeoutMs: options.tools.devices.timeoutMs,
          maxOutputChars: options.tools.devices.maxOutputChars,
          knownHostsFile,
        }),
      );
    last = { devices: current, tools };
    return tools;
  };
}
