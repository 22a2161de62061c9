/** `clawbox channels status [--json]`: each channel's state, last event and inbox/outbox counts. */
import { formatChannelStatus, readChannelStatus } from "../../channels/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

const STATUS = { options: { json: { type: "boolean" } }, positionals: false } as const;

export const channelsCommand: Command = {
  name: "channels",
  args: { subcommands: { status: STATUS } },
  usage: [
    "Usage: clawbox channels status [--json]",
    "  Shows each channel's state (connected, resuming, disabled, stopped, error with the",
    "  reason), when the platform was last heard from, and inbox/outbox counts by state",
    "  (for MQTT, the bridge's prompts: received/rejected in, replied/failed out, as in",
    "  clawbox mqtt status; for Home Assistant voice (wyoming), its turns and refused",
    "  connections).",
  ].join("\n"),
  async run(ctx, args) {
    const { values } = parseWith(args.slice(1), STATUS);
    const statuses = readChannelStatus(ctx.store().db, ctx.config().config.channels);
    // The Home Assistant bridge lives in src/mqtt (not a chat channel) but is listed here too.
    const { mqttChannelStatus } = await import("../../mqtt/index.ts");
    statuses.push(mqttChannelStatus(ctx.config().config, ctx.home));
    // So is Home Assistant's voice agent (src/wyoming).
    const { wyomingChannelStatus } = await import("../../wyoming/index.ts");
    statuses.push(wyomingChannelStatus(ctx.config().config.wyoming, ctx.home));
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify({ channels: statuses }, null, 2)}\n`);
      return EXIT.ok;
    }
    for (const status of statuses) ctx.stdout.write(`${formatChannelStatus(status)}\n`);
    return EXIT.ok;
  },
};
