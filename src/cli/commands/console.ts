/**
 * `clawbox console url`: a fresh one-time login link for the web console (the Jupyter
 * model: the console never acts as the owner for a browser that has not logged in).
 * The link is signed with `<home>/console-secret`, so only a user who can read that file
 * (the service's user, root) can make one; it is valid once, for 10 minutes, and only
 * for the service running now. It is made only when that service answers on the port
 * (its /health): with nothing listening it says so and exits 1, never a dead link.
 */
import { existsSync } from "node:fs";
import { loadServerSection, type ServerConfig } from "../../config/index.ts";
import {
  consoleLinkBase,
  issueTicket,
  loginLink,
  loginSecretPath,
  readLoginSecret,
  TICKET_TTL_MS,
} from "../../console/index.ts";
import { ClawboxError, isClawboxError } from "../../errors/index.ts";
import type { CliContext } from "../cli-context.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { parseWith } from "../parse-args.ts";

const URL_ARGS = {
  options: { port: { type: "string" }, host: { type: "string" } },
  positionals: false,
} as const;

/**
 * The server's address from the config; while the file is invalid elsewhere, from its
 * `server` section alone (the link needs nothing else), with a note saying so.
 */
function serverOf(ctx: CliContext): ServerConfig {
  try {
    return ctx.config().config.server;
  } catch (error) {
    if (!isClawboxError(error, "CONFIG_INVALID")) throw error;
    const server = loadServerSection(ctx.paths.configFile, ctx.env);
    ctx.stderr.write(
      `note: ${ctx.paths.configFile} is not valid (clawbox config check lists why); the link uses its server section only\n`,
    );
    return server;
  }
}

/** How long the check that the service answers may take. */
const PROBE_MS = 3000;

/** Whether clawbox answers at `base` (its /health names a version), something else, or nothing. */
async function probeService(base: string): Promise<"clawbox" | "other" | "nothing"> {
  try {
    const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(PROBE_MS) });
    const body = (await response.json().catch(() => undefined)) as
      | { version?: unknown }
      | undefined;
    return typeof body?.version === "string" ? "clawbox" : "other";
  } catch {
    return "nothing";
  }
}

export const consoleCommand: Command = {
  name: "console",
  args: { subcommands: { url: URL_ARGS } },
  usage: [
    "Usage: clawbox console url [--port N] [--host ADDR]",
    "  url          a fresh one-time login link (valid once, for 10 minutes, for the",
    "               service running now; exits 1 when none listens on the port);",
    "               needs read access to <home>/console-secret",
    "  --port N     the console's port (default server.port)",
    "  --host ADDR  the address in the link (default server.host; 127.0.0.1 when that",
    "               is 0.0.0.0 or ::)",
  ].join("\n"),
  async run(ctx, args) {
    const { values } = parseWith(args.slice(1), URL_ARGS);
    const file = loginSecretPath(ctx.home);
    if (!existsSync(file)) {
      throw new ClawboxError("CONFIG_INVALID", `${file}: no console login secret yet`, {
        hint: "start the service once (clawbox run); it creates the secret",
      });
    }
    let secret: string;
    try {
      secret = readLoginSecret(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EACCES")
        throw new ClawboxError("CONFIG_INVALID", `${file}: not readable by this user`, {
          hint: "run it as the service's user, e.g. sudo -u clawbox CLAWBOX_HOME=/var/lib/clawbox clawbox console url",
        });
      throw error;
    }
    const server = serverOf(ctx);
    const port = values.port === undefined ? server.port : Number(values.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new ClawboxError("CLI_USAGE", `--port: not a port number: ${values.port}`);
    const base = consoleLinkBase(values.host ?? server.host, port);
    // A link to a port where nothing (or not clawbox) answers would only fail in the browser.
    const answer = await probeService(base);
    if (answer !== "clawbox") {
      ctx.stderr.write(
        `clawbox console url: ${answer === "nothing" ? "no service listens" : "something that is not clawbox answers"} on ${base}; no link made\n` +
          `hint: start it with clawbox run (or systemctl start clawbox), or give the port it listens on with --port\n`,
      );
      return EXIT.failed;
    }
    ctx.stdout.write(`${loginLink(base, issueTicket(secret))}\n`);
    ctx.stderr.write(
      `(valid once, for ${TICKET_TTL_MS / 60_000} minutes; open it in a browser on this machine)\n`,
    );
    return EXIT.ok;
  },
};
