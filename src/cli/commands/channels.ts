/** `clawbox channels status [--json]`: each channel's state, last event and inbox/outbox counts. */
import { formatChannelStatus, readChannelStatus } from "../../channels/index.ts";
import { ClawboxError } from "../../errors/index.ts";
import type { Command } from "../command.ts";
import { parseCommandArgs } from "../parse-args.ts";

const USAGE = [
  "Usage: clawbox channels status [--json]",
  "  Shows each channel's state (connected, resuming, disabled, stopped, error with the",
  "  reason), when the platform was last heard from, and inbox/outbox counts by state.",
].join("\n");

export const channelsCommand: Command = {
  name: "channels",
  summary: "channel state (QQ, WeCom), last event, inbox and outbox counts",
  usage: USAGE,
  async run(ctx, args) {
    const [sub, ...rest] = args;
    if (sub !== "status") throw new ClawboxError("CLI_USAGE", USAGE);
    const { values } = parseCommandArgs(rest, { json: { type: "boolean" } }, false);
    const statuses = readChannelStatus(ctx.store().db, ctx.config().config);
    // The Home Assistant bridge lives in src/mqtt (not a chat channel) but is listed here too.
    const { mqttChannelStatus } = await import("../../mqtt/index.ts");
    statuses.push(mqttChannelStatus(ctx.config().config, ctx.home));
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify({ channels: statuses }, null, 2)}\n`);
      return 0;
    }
    for (const status of statuses) ctx.stdout.write(`${formatChannelStatus(status)}\n`);
    return 0;
  },
};
