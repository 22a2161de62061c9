/** `clawbox followups list|rm`: promises the assistant made for later (opt-in, followups.enabled). */
import { ClawboxError } from "../../errors/index.ts";
import { FollowupStore } from "../../scheduler/index.ts";
import type { Command } from "../command.ts";
import { parseCommandArgs } from "../parse-args.ts";

export const followupsCommand: Command = {
  name: "followups",
  summary: "list or cancel the assistant's promised follow-ups",
  usage: [
    "Usage: clawbox followups <list|rm> [options]",
    "  list [--json]      open follow-ups with their due times",
    "  rm ID [--json]     cancel one",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const { config } = ctx.config();
    const store = new FollowupStore(ctx.store().db, config.followups.maxOpen);
    const { values, positionals } = parseCommandArgs(rest, { json: { type: "boolean" } });
    if (sub === "list") {
      const open = store.list();
      if (values.json) ctx.stdout.write(`${JSON.stringify({ followups: open })}\n`);
      else
        ctx.stdout.write(
          `${
            open.length === 0
              ? `no open follow-ups${config.followups.enabled ? "" : " (followups.enabled is false)"}`
              : open
                  .map(
                    (f) =>
                      `${f.id}  due ${new Date(f.dueAt).toISOString()}  ${f.sessionKey}  "${f.text}"`,
                  )
                  .join("\n")
          }\n`,
        );
      return 0;
    }
    if (sub === "rm") {
      const id = Number(positionals[0]);
      if (!Number.isInteger(id))
        throw new ClawboxError("CLI_USAGE", "rm needs a follow-up ID (see clawbox followups list)");
      if (!store.cancel(id)) throw new ClawboxError("CLI_USAGE", `no open follow-up with id ${id}`);
      ctx.stdout.write(
        values.json ? `${JSON.stringify({ cancelled: id })}\n` : `cancelled ${id}\n`,
      );
      return 0;
    }
    throw new ClawboxError("CLI_USAGE", `unknown followups subcommand: ${sub ?? "(none)"}`, {
      hint: "clawbox followups list|rm",
    });
  },
};
