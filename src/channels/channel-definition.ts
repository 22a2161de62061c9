/**
 * What a channel gives the registry: its id, its settings from the config, why it is
 * off, and a loader for its adapter. A leaf of types (the registry lists the channels'
 * definitions, and each definition names this shape, so neither imports the other).
 */
import type { ChannelsConfig } from "../config/index.ts";
import type { Logger } from "../system/index.ts";
import type { AccessPolicy } from "./access.ts";
import type { ChannelAdapter, ChannelCapabilities } from "./channel.ts";

export interface ChannelSettings {
  capabilities: ChannelCapabilities;
  access: AccessPolicy;
}

export interface AdapterDeps {
  /** The `channels` section; each adapter reads its own entry. */
  channels: ChannelsConfig;
  logger: Logger;
  /** The workspace folder (local files the assistant may send must be inside it). */
  workspace: string;
}

export interface ChannelDefinition {
  id: string;
  /** Undefined when the channel is not configured or `enabled: false`. */
  settings(channels: ChannelsConfig): ChannelSettings | undefined;
  /** The channel's own config section (a change to it restarts the channel at a reload). */
  section(channels: ChannelsConfig): unknown;
  /** Why the channel is off, in plain words. */
  disabledReason(channels: ChannelsConfig): string;
  /** Imports and builds the adapter (called only for enabled channels). */
  load(deps: AdapterDeps): Promise<ChannelAdapter>;
}
