/** `clawbox mqtt status [--json]`: the Home Assistant bridge's broker, connection state and entities. */
import { ClawboxError } from "../../errors/index.ts";
import { formatMqttReport, mqttReport } from "../../mqtt/index.ts";
import type { Command } from "../command.ts";
import { parseCommandArgs } from "../parse-args.ts";
import { VERSION } from "../version.ts";

export const mqttCommand: Command = {
  name: "mqtt",
  summary: "Home Assistant bridge: broker, connection state, entities",
  usage: [
    "Usage: clawbox mqtt status [--json]",
    "  status   broker (without credentials), connection state of the running service,",
    "           topics, session and the discovery entities Home Assistant sees",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    if (sub !== "status") throw new ClawboxError("CLI_USAGE", `unknown subcommand "${sub ?? ""}"`);
    const { values } = parseCommandArgs(rest, { json: { type: "boolean" } }, false);
    const report = mqttReport(ctx.config().config, ctx.home, VERSION);
    ctx.stdout.write(
      values.json ? `${JSON.stringify(report, null, 2)}\n` : formatMqttReport(report),
    );
    return 0;
  },
};
