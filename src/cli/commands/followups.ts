/** `clawbox followups list|rm`: promises the assistant made for later (opt-in, followups.enabled). */
import { ClawboxError } from "../../errors/index.ts";
import { FollowupStore } from "../../scheduler/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

const LIST = { options: { json: { type: "boolean" } }, positionals: false } as const;
const RM = { options: { json: { type: "boolean" } }, positionals: true } as const;

export const followupsCommand: Command = {
  name: "followups",
  args: { subcommands: { list: LIST, rm: RM } },
  usage: [
    "Usage: clawbox followups <list|rm> [options]",
    "  list [--json]      open follow-ups with their due times",
    "  rm ID [--json]     cancel one",
  ].join("\n"),
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const { config } = ctx.config();
    const store = new FollowupStore(ctx.store().db, config.followups.maxOpen);
    if (sub === "list") {
      const { values } = parseWith(rest, LIST);
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
      return EXIT.ok;
    }
    const { values, positionals } = parseWith(rest, RM);
    const given = positionals[0];
    if (given === undefined)
      throw new ClawboxError("CLI_USAGE", "rm needs a follow-up ID (see clawbox followups list)");
    const id = Number(given);
    // An ID that is not a number names no follow-up, like a number nobody has.
    if (!/^\d+$/.test(given) || !store.cancel(id)) {
      throw new ClawboxError("NOT_FOUND", `no open follow-up with id ${given}`, {
        hint: "see clawbox followups list",
      });
    }
    ctx.stdout.write(values.json ? `${JSON.stringify({ cancelled: id })}\n` : `cancelled ${id}\n`);
    return EXIT.ok;
  },
};
