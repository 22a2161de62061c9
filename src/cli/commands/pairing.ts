/**
 * `clawbox pairing list|approve|deny|add|remove`: the owner's side of pairing at the box's
 * terminal. A stranger sends the bot `/pair` in a direct chat and gets a code; approving
 * it adds their `<channel>:<id>` to `agent.owners` in the config file (comments kept) and
 * tells them on their platform; a running `clawbox run` applies the new owners within
 * two seconds (its config watcher). Whoever can run this can read the box's database and
 * config, so the CLI needs no other login; that is also why `add` may name anyone
 * (`add cli` gives the terminal its owner rights back after a removal).
 */
import { tellRequester } from "../../channels/index.ts";
import { ClawboxError, toClawboxError } from "../../errors/index.ts";
import {
  addOwner,
  approvedText,
  approvePairing,
  currentOwners,
  denyPairing,
  type PairingRequest,
  PairingRequests,
  removalWarning,
  removeOwner,
} from "../../pairing/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

const USAGE = [
  "Usage: clawbox pairing <list|approve|deny|add|remove> [options]",
  "  list [--json]            pending pairing codes (who asked, on which channel) and the owners",
  "  approve CODE [--json]    the person who was sent CODE becomes an owner and is told so",
  "  deny CODE [--json]       drop the request (the person is not told)",
  "  add OWNER [--json]       make <channel>:<id> an owner without a code, e.g. cli or qq:OPENID",
  "  remove OWNER [--yes] [--json]",
  "                           remove an owner, e.g. qq:OPENID (never the last one); removing",
  "                           the id this terminal or the console speaks as (cli) warns, and",
  "                           in a terminal asks first (--yes: do not ask)",
].join("\n");

const describe = (r: PairingRequest, now: number): string =>
  `${r.display}  ${r.ownerId}${r.senderName ? ` (${r.senderName})` : ""}  on ${r.channel}  expires in ${Math.max(1, Math.round((r.expiresAt - now) / 60_000))} min`;

/** `cli`, or `<channel>:<id>` with no spaces. */
const OWNER_ID = /^(cli|[a-z][a-z0-9-]*:[^\s]{1,190})$/;

const LIST = { options: { json: { type: "boolean" } }, positionals: false } as const;
const ONE = { options: { json: { type: "boolean" } }, positionals: true } as const;
const REMOVE = {
  options: { json: { type: "boolean" }, yes: { type: "boolean" } },
  positionals: true,
} as const;

/** Asks a yes/no question on the terminal; true only for an answer starting with y. */
async function confirm(
  question: string,
  stderr: { write(text: string): unknown },
): Promise<boolean> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return /^\s*y/i.test(await rl.question(question));
  } catch {
    stderr.write("\n");
    return false;
  } finally {
    rl.close();
  }
}

export const pairingCommand: Command = {
  name: "pairing",
  usage: USAGE,
  args: { subcommands: { list: LIST, approve: ONE, deny: ONE, add: ONE, remove: REMOVE } },
  async run(ctx, args) {
    const [sub, ...rest] = args;
    const { values, positionals } = parseWith(
      rest,
      sub === "list" ? LIST : sub === "remove" ? REMOVE : ONE,
    );
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
        `${sub} needs ${sub === "remove" || sub === "add" ? "an owner id" : "a CODE"} (see clawbox pairing list)`,
      );
    if (sub === "add") {
      if (!OWNER_ID.test(target))
        throw new ClawboxError(
          "CLI_USAGE",
          `add: "${target.slice(0, 80)}" is not an owner id (use cli, or <channel>:<id> such as qq:OPENID)`,
        );
      const next = await addOwner(owners, target);
      print(
        { added: target, owners: next },
        `${target} is an owner; owners: ${next.join(", ")} (a running clawbox applies it within 2 s)`,
      );
      return EXIT.ok;
    }
    if (sub === "remove") {
      // The terminal and the console act as an owner id: say what removing it costs, and
      // in a terminal ask first.
      const warning = removalWarning(currentOwners(owners), target);
      if (warning) {
        ctx.stderr.write(`warning: ${warning}\n`);
        const asks = Boolean(process.stdin.isTTY) && !("yes" in values && values.yes);
        if (asks && !(await confirm(`remove ${target}? [y/N] `, ctx.stderr))) {
          ctx.stderr.write(`not removed; owners unchanged\n`);
          return EXIT.failed;
        }
      }
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
    // tellRequester only queues: the running service sends it (or fails; see
    // `clawbox channels status`), so this never says they were told.
    let told = `a message to tell them is queued on ${request.channel}`;
    try {
      tellRequester(ctx.store().db, ctx.config().config.channels, request, approvedText());
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
