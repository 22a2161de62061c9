/**
 * Entry point of the `clawbox` program (source run and compiled binary alike).
 * Global flags: --home DIR, --version, --help. Exit codes: the table in exit-codes.ts
 * (0 ok, 1 failed, 2 usage or not found, 130 Ctrl-C). A typo is answered with the
 * nearest command or global option ("did you mean `sessions`?").
 */
import { isClawboxError } from "../errors/index.ts";
import { nearestWord, resolveHome } from "../system/index.ts";
import { createCliContext, type Output } from "./cli-context.ts";
import { writerQuietOnClosedPipe } from "./closed-stdout.ts";
import { COMMANDS } from "./commands/index.ts";
import { ensureHome } from "./ensure-home.ts";
import { EXIT, exitCodeOf } from "./exit-codes.ts";
import { checkCommandArgs } from "./parse-args.ts";
import { VERSION } from "./version.ts";

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    `clawbox ${VERSION} — home-assistant box runtime`,
    "",
    "Usage: clawbox [--home DIR] <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Global options:",
    "  --home DIR   data folder (env CLAWBOX_HOME, default ~/.clawbox)",
    "  --version    print the version",
    "  --help       this text; `clawbox <command> --help` for a command",
    "",
    "Exit codes: 0 ok, 1 failed, 2 usage error or not found, 130 stopped with Ctrl-C.",
    "",
  ].join("\n");
}

export interface MainIo {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
}

/** The options `clawbox` itself takes, before (or, --home, after) the command. */
const GLOBAL_OPTIONS = ["--home", "--version", "--help"];

/** Commands that never read or write the home folder (they may run on a missing one). */
const WITHOUT_HOME = new Set(["config"]);

export async function main(argv: string[], io: MainIo): Promise<number> {
  const rest: string[] = [];
  let home: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    // --home is global: accepted before or after the command (`clawbox chat --home DIR`).
    if (arg === "--home" || arg.startsWith("--home=")) {
      home = arg.includes("=") ? arg.slice(7) : argv[++i];
      if (!home) {
        io.stderr.write("clawbox: --home needs a folder\n");
        return EXIT.usage;
      }
      continue;
    }
    rest.push(arg);
  }
  const [name, ...args] = rest;
  if (name === "--version" || name === "-v" || name === "version") {
    io.stdout.write(`clawbox ${VERSION}\n`);
    return EXIT.ok;
  }
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(helpText());
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name.startsWith("-")) {
    // A mistyped global option (`--hom`, `--verison`) is an option, not a command.
    const meant = nearestWord(name.split("=")[0] ?? name, GLOBAL_OPTIONS);
    io.stderr.write(
      `clawbox: unknown option "${name}"${meant ? `: did you mean \`${meant}\`?` : ` (global options: ${GLOBAL_OPTIONS.join(", ")})`}\n` +
        "Run clawbox --help for the commands and options.\n",
    );
    return EXIT.usage;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    const meant = nearestWord(
      name,
      COMMANDS.map((c) => c.name),
    );
    io.stderr.write(
      `clawbox: unknown command "${name}"${meant ? `: did you mean \`${meant}\`?` : ""}\n\n${helpText()}`,
    );
    return EXIT.usage;
  }
  const command = await entry.load();
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout.write(`${command.usage}\n`);
    return EXIT.ok;
  }
  const homeDir = resolveHome(home, io.env);
  try {
    // Before anything starts: a wrong subcommand or flag changes nothing.
    checkCommandArgs(command, args);
    if (!WITHOUT_HOME.has(name) && ensureHome(homeDir)) {
      io.stderr.write(`clawbox: created a new home at ${homeDir}\n`);
    }
  } catch (error) {
    if (!isClawboxError(error)) throw error;
    io.stderr.write(`clawbox ${name}: ${error.message}\n`);
    if (error.code === "CLI_USAGE") io.stderr.write(`\n${command.usage}\n`);
    return exitCodeOf(error.code);
  }
  const ctx = createCliContext(homeDir, io);
  try {
    const code = await command.run(ctx, args);
    return ctx.keepAlive ? await ctx.keepAlive : code;
  } catch (thrown) {
    // A damaged database reads the same everywhere (and as in doctor), never as a stack.
    const { describeDatabaseFailure } = await import("../store/index.ts");
    const error = describeDatabaseFailure(thrown, ctx.paths.database) ?? thrown;
    if (isClawboxError(error)) {
      io.stderr.write(`clawbox ${name}: ${error.message}\n`);
      if (error.code === "CLI_USAGE") io.stderr.write(`\n${command.usage}\n`);
      return exitCodeOf(error.code);
    }
    io.stderr.write(
      `clawbox ${name}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.failed;
  } finally {
    ctx.close();
  }
}

if (import.meta.main) {
  const stdout = writerQuietOnClosedPipe(process.stdout);
  const stderr = writerQuietOnClosedPipe(process.stderr);
  const code = await main(process.argv.slice(2), {
    stdout: { write: stdout, isTerminal: process.stdout.isTTY === true },
    stderr: { write: stderr },
    env: process.env,
  });
  process.exitCode = code;
  // Native handles (llama.cpp, onnxruntime) can keep the loop alive: leave explicitly.
  setTimeout(() => process.exit(code), 50).unref();
}
