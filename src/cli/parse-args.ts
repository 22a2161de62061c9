/** Thin wrapper over node:util parseArgs that turns its errors into CLI_USAGE errors. */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { ClawboxError } from "../errors/index.ts";

export function parseCommandArgs<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  allowPositionals = true,
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new ClawboxError("CLI_USAGE", error instanceof Error ? error.message : String(error));
  }
}
