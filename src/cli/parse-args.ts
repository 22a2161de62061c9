/**
 * Argument parsing for commands: node:util parseArgs (strict) with its errors turned into
 * CLI_USAGE, and the check the runner makes against a command's declared `args` before
 * anything starts. A mistyped subcommand or option is answered with the nearest one
 * ("did you mean `--json`?").
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { nearestWord } from "../system/index.ts";
import type { ArgSpec, Command } from "./command.ts";

/** Options every command takes besides its own (`--home` is global, `--help` prints usage). */
const EVERY_COMMAND = ["--help", "--home"];

export function parseCommandArgs<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  allowPositionals = true,
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    const unknown = /^Unknown option '([^']+)'/.exec(errorMessage(error))?.[1];
    if (unknown === undefined) throw new ClawboxError("CLI_USAGE", errorMessage(error));
    // parseArgs's own words suggest `--` even for a typo; name the option meant instead.
    const own = Object.entries(options as Record<string, { short?: string }>).flatMap(
      ([name, spec]) => [`--${name}`, ...(spec.short ? [`-${spec.short}`] : [])],
    );
    const meant = nearestWord(unknown, [...own, ...EVERY_COMMAND]);
    const takes = own.filter((o) => o.startsWith("--"));
    throw new ClawboxError(
      "CLI_USAGE",
      meant
        ? `unknown option "${unknown}": did you mean \`${meant}\`?`
        : `unknown option "${unknown}" (${takes.length > 0 ? `options here: ${takes.join(", ")}` : "this takes no options"})`,
    );
  }
}

/** Parses `args` with one spec (typed values for the command). */
export function parseWith<S extends ArgSpec>(args: string[], spec: S) {
  return parseCommandArgs(args, spec.options as S["options"], spec.positionals);
}

/** "list, add or rm" */
export function listWords(words: readonly string[]): string {
  return words.length <= 1
    ? (words[0] ?? "")
    : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}

/**
 * Checks `args` against what `command` declares: a known subcommand (when it has any)
 * and options that parse. Throws CLI_USAGE naming the first problem. Returns the
 * subcommand ("" for commands without).
 */
export function checkCommandArgs(command: Command, args: string[]): string {
  if (!("subcommands" in command.args)) {
    parseCommandArgs(args, command.args.options, command.args.positionals);
    return "";
  }
  const names = Object.keys(command.args.subcommands);
  const fallback = command.args.defaultSubcommand;
  const given = args[0] !== undefined && !args[0].startsWith("-");
  if (!given && fallback === undefined) {
    throw new ClawboxError("CLI_USAGE", `missing subcommand: use ${listWords(names)}`);
  }
  const sub = given ? (args[0] as string) : (fallback as string);
  const rest = given ? args.slice(1) : args;
  const spec = Object.hasOwn(command.args.subcommands, sub)
    ? command.args.subcommands[sub]
    : undefined;
  if (!spec) {
    const meant = nearestWord(sub, names);
    throw new ClawboxError(
      "CLI_USAGE",
      `unknown subcommand "${sub}": ${meant ? `did you mean \`${meant}\`? (` : ""}use ${listWords(names)}${meant ? ")" : ""}`,
    );
  }
  parseCommandArgs(rest, spec.options, spec.positionals);
  return sub;
}
