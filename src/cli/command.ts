/** A CLI command: one file per top-level command under `commands/`. */
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
