/**
 * `clawbox config check|show|path|token`: validate the configuration without starting
 * anything; `token` prints a random `server.token` (the docs show this command, never a
 * literal token: a copied example is known to everyone).
 */

import { type ConfigIssue, formatIssue, generateToken } from "../../config/index.ts";
import { isClawboxError } from "../../errors/index.ts";
import { collectSecrets, redact } from "../../system/index.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";

const NONE = { options: {}, positionals: false } as const;

export const configCommand: Command = {
  name: "config",
  args: { subcommands: { check: NONE, show: NONE, path: NONE, token: NONE } },
  usage: [
    "Usage: clawbox config <check|show|path|token>",
    "  check   validate clawbox.json; exit 0 when valid, 2 with every error listed",
    "  show    print the effective configuration (defaults applied, secrets redacted)",
    "  path    print the config file path",
    "  token   print a new random token for server.token (256 bits; nothing is written)",
  ].join("\n"),
  async run(ctx, args) {
    const sub = args[0];
    if (sub === "token") {
      ctx.stdout.write(`${generateToken()}\n`);
      return EXIT.ok;
    }
    if (sub === "path") {
      ctx.stdout.write(`${ctx.paths.configFile}\n`);
      return EXIT.ok;
    }
    if (sub === "show") {
      ctx.stdout.write(
        `${JSON.stringify(redact(ctx.config().config, collectSecrets(ctx.config().config)), null, 2)}\n`,
      );
      return EXIT.ok;
    }
    try {
      const loaded = ctx.config();
      const where = loaded.fileExists ? loaded.file : `${loaded.file} (absent: defaults)`;
      if (loaded.warnings.length > 0) {
        ctx.stdout.write(`${where}: valid, ${loaded.warnings.length} warning(s)\n`);
        return EXIT.ok;
      }
      ctx.stdout.write(`${where}: valid\n`);
      return EXIT.ok;
    } catch (error) {
      if (!isClawboxError(error, "CONFIG_INVALID", "CONFIG_UNREADABLE")) throw error;
      const details = error.details as
        | { issues?: ConfigIssue[]; warnings?: ConfigIssue[] }
        | undefined;
      const issues = [...(details?.issues ?? []), ...(details?.warnings ?? [])];
      if (issues.length === 0) ctx.stderr.write(`${error.message}\n`);
      for (const issue of issues) ctx.stderr.write(`${formatIssue(issue)}\n`);
      return EXIT.usage;
    }
  },
};
