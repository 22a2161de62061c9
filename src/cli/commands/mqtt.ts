/** `clawbox mqtt status [--json]`: the Home Assistant bridge's broker, connection state and entities. */
import { formatMqttReport, mqttReport } from "../../mqtt/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";
import { VERSION } from "../version.ts";

const STATUS = { options: { json: { type: "boolean" } }, positionals: false } as const;

export const mqttCommand: Command = {
  name: "mqtt",
  args: { subcommands: { status: STATUS } },
  usage: [
    "Usage: clawbox mqtt status [--json]",
    "  status   broker (without credentials), connection state of the running service,",
    "           topics, session and the discovery entities Home Assistant sees",
  ].join("\n"),
  async run(ctx, args) {
    const { values } = parseWith(args.slice(1), STATUS);
    const report = mqttReport(ctx.config().config, ctx.home, VERSION);
    ctx.stdout.write(
      values.json ? `${JSON.stringify(report, null, 2)}\n` : formatMqttReport(report),
    );
    return EXIT.ok;
  },
};
