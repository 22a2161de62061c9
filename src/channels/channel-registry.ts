/**
 * The channels clawbox knows. A channel plugs in with one entry: its id, its settings
 * from the config (undefined when off), and a loader that imports the adapter only
 * when the channel is enabled, after READY, so startup never pays for it.
 */
import type { ClawboxConfig } from "../config/index.ts";
import type { Logger } from "../system/index.ts";
import type { AccessPolicy } from "./access.ts";
import type { ChannelAdapter, ChannelCapabilities } from "./channel.ts";
import { qqDefinition } from "./qq/qq-definition.ts";
import { wecomAppDefinition, wecomBotDefinition } from "./wecom/index.ts";

export interface ChannelSettings {
  capabilities: ChannelCapabilities;
  access: AccessPolicy;
}

export interface AdapterDeps {
  config: ClawboxConfig;
  logger: Logger;
  /** The workspace folder (local files the assistant may send must be inside it). */
  workspace: string;
}

export interface ChannelDefinition {
  id: string;
  /** Undefined when the channel is not configured or `enabled: false`. */
  settings(config: ClawboxConfig): ChannelSettings | undefined;
  /** The channel's own config section (a change to it restarts the channel at a reload). */
  section(config: ClawboxConfig): unknown;
  /** Why the channel is off, in plain words. */
  disabledReason(config: ClawboxConfig): string;
  /** Imports and builds the adapter (called only for enabled channels). */
  load(deps: AdapterDeps): Promise<ChannelAdapter>;
}

export const CHANNELS: readonly ChannelDefinition[] = [
  qqDefinition,
  wecomAppDefinition,
  wecomBotDefinition,
];

export function channelDefinition(id: string): ChannelDefinition | undefined {
  return CHANNELS.find((c) => c.id === id);
}
