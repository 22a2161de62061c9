/**
 * `clawbox pairing list|approve|deny|remove`: the owner's side of pairing at the box's
 * terminal. A stranger sends the bot `/pair` in a direct chat and gets a code; approving
 * it adds their `<channel>:<id>` to `agent.owners` in the config file (comments kept) and
 * tells them on their platform; a running `clawbox run` applies the new owners within
 * two seconds (its config watcher). Whoever can run this can read the box's database and
 * config, so the CLI needs no other login.
 */
import { tellRequester } from "../../channels/index.ts";
import { ClawboxError, toClawboxError } from "../../errors/index.ts";
import {
  approvedText,
  approvePairing,
  currentOwners,
  denyPairing,
  type PairingRequest,
  PairingRequests,
  removeOwner,
} from "../../pairing/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

const USAGE = [
  "Usage: clawbox pairing <list|approve|deny|remove> [options]",
  "  list [--json]            pending pairing codes (who asked, on which channel) and the owners",
  "  approve CODE [--json]    the person who was sent CODE becomes an owner and is told so",
  "  deny CODE [--json]       drop the request (the person is not told)",
  "  remove OWNER [--json]    remove an owner, e.g. qq:OPENID (never the last one)",
].join("\n");

const describe = (r: PairingRequest, now: number): string =>
  `${r.display}  ${r.ownerId}${r.senderName ? ` (${r.senderName})` : ""}  on ${r.channel}  expires in ${Math.max(1, Math.round((r.expiresAt - now) / 60_000))} min`;

const LIST = { options: { json: { type: "boolean" } }, positionals: false } as const;
const ONE = { options: { json: { type: "boolean" } }, positionals: true } as const;

export const pairingCommand: Command = {
  name: "pairing",
  usage: USAGE,
  args: { subcommands: { list: LIST, approve: ONE, deny: ONE, remove: ONE } },
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const { values, positionals } = parseWith(rest, sub === "list" ? LIST : ONE);
    const print = (data: unknown, text: string) =>
      ctx.stdout.write(values.json ? `${JSON.stringify(data)}\n` : `${text}\n`);
    const requests = new PairingRequests(ctx.store().db);
    const owners = { file: ctx.paths.configFile, env: ctx.env };
    if (sub === "list") {
      const pending = requests.list();
      const now = Date.now();
      const list = currentOwners(owners);
      print(
        { pending, owners: list },
        [
          pending.length === 0
            ? "no pending pairing requests"
            : ["pending:", ...pending.map((r) => `  ${describe(r, now)}`)].join("\n"),
          `owners: ${list.join(", ")}`,
        ].join("\n"),
      );
      return EXIT.ok;
    }
    const target = positionals[0];
    if (!target)
      throw new ClawboxError(
        "CLI_USAGE",
        `${sub} needs ${sub === "remove" ? "an owner id" : "a CODE"} (see clawbox pairing list)`,
      );
    if (sub === "remove") {
      const next = await removeOwner(owners, target);
      print({ removed: target, owners: next }, `removed ${target}; owners: ${next.join(", ")}`);
      return EXIT.ok;
    }
    if (sub === "deny") {
      const request = denyPairing(requests, target);
      print({ denied: request }, `denied ${request.display} (${request.ownerId})`);
      return EXIT.ok;
    }
    const request = await approvePairing(requests, owners, target);
    let told = `told them on ${request.channel}`;
    try {
      tellRequester(ctx.store().db, ctx.config().config, request, approvedText());
    } catch (error) {
      told = `not told: ${toClawboxError(error).message}`;
    }
    print(
      { approved: request, owner: request.ownerId },
      `approved ${request.display}: ${request.ownerId} is now an owner (${told}); a running clawbox applies it within 2 s`,
    );
    return EXIT.ok;
  },
};
