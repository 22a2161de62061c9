/**
 * A CLI command: one file per top-level command under `commands/`. The command table
 * holds only names, summaries and loaders, so `clawbox --version` and `--help` import
 * nothing heavy and a command's dependencies load only when it runs.
 */
import type { CliContext } from "./cli-context.ts";

export interface Command {
  name: string;
  /** One line for `--help`. */
  summary: string;
  /** Usage text shown by `clawbox <name> --help` and on usage errors. */
  usage: string;
  /** Returns the exit code. Throwing a ClawboxError prints its message and exits 1. */
  run(ctx: CliContext, args: string[]): Promise<number>;
}

export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}
