/**
 * The channels clawbox knows. A channel plugs in with one entry: its id, its settings
 * from the config (undefined when off), and a loader that imports the adapter only
 * when the channel is enabled, after READY, so startup never pays for it.
 */
import type { ChannelDefinition } from "./channel-definition.ts";
import { qqDefinition } from "./qq/qq-definition.ts";
import { wecomAppDefinition, wecomBotDefinition } from "./wecom/index.ts";

export const CHANNELS: readonly ChannelDefinition[] = [
  qqDefinition,
  wecomAppDefinition,
  wecomBotDefinition,
];

export function channelDefinition(id: string): ChannelDefinition | undefined {
  return CHANNELS.find((c) => c.id === id);
}
