/**
 * Proactive messages (cron reminders, heartbeat alerts): not replies to anything, so
 * they carry no reply_to and no reply window. Shaped like replies for the channel's
 * capabilities and stored in the outbox; the running service's worker sends them
 * (it polls, so a row stored by any code path goes out within a second).
 */
import type { Database } from "bun:sqlite";
import type { ChannelsConfig } from "../config/index.ts";
import { ClawboxError } from "../errors/index.ts";
import type { ChannelTarget } from "./channel.ts";
import type { ChannelSettings } from "./channel-definition.ts";
import { channelDefinition } from "./channel-registry.ts";
import { Outbox } from "./outbox.ts";
import { shapeReply } from "./reply-shaping.ts";

/** The settings of an enabled channel; CONFIG_INVALID when it is off or unknown. */
export function enabledChannel(channels: ChannelsConfig, channel: string): ChannelSettings {
  const settings = channelDefinition(channel)?.settings(channels);
  if (!settings)
    throw new ClawboxError(
      "CONFIG_INVALID",
      `channel "${channel}" is not configured or not enabled`,
      {
        hint: `add channels.${channel} to the config`,
      },
    );
  return settings;
}

/** Stores the message for `target`; returns the outbox ids (empty for an empty text). */
export function enqueueProactive(
  db: Database,
  channels: ChannelsConfig,
  target: ChannelTarget,
  text: string,
): number[] {
  const settings = enabledChannel(channels, target.channel);
  const parts = shapeReply(text, settings.capabilities);
  return db.transaction(() => new Outbox(db).enqueue(target, parts).ids)();
}
