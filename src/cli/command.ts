/**
 * A CLI command: one file per top-level command under `commands/`. The command table
 * holds only names, summaries and loaders, so `clawbox --version` and `--help` import
 * nothing heavy and a command's dependencies load only when it runs. Each command
 * declares the arguments it takes (`args`): the runner checks them before `run` (an
 * unknown subcommand or flag never starts anything), and the docs test checks every
 * command line the README and docs/ show against the same declaration.
 */
import type { ParseArgsConfig } from "node:util";
import type { CliContext } from "./cli-context.ts";

export type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;

/** What one command or subcommand accepts. */
export interface ArgSpec {
  options: OptionSpecs;
  /** Whether it takes words besides options (a message, an ID, a query). */
  positionals: boolean;
}

/**
 * One spec, or one per subcommand (the first word after the command); `defaultSubcommand`
 * is used when the first word is missing or an option.
 */
export type CommandArgs =
  | ArgSpec
  | { subcommands: Record<string, ArgSpec>; defaultSubcommand?: string };

export interface Command {
  name: string;
  /** Usage text shown by `clawbox <name> --help` and on usage errors. */
  usage: string;
  args: CommandArgs;
  /**
   * Returns the exit code (EXIT in exit-codes.ts). A thrown ClawboxError prints its
   * message and exits by its code (exitCodeOf).
   */
  run(ctx: CliContext, args: string[]): Promise<number>;
}

export interface CommandEntry {
  name: string;
  /** One line for `--help`. */
  summary: string;
  load: () => Promise<Command>;
}
