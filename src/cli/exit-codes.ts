/**
 * The one exit-code table of the clawbox CLI (the README's "Exit codes"): 0 ok, 1 failed,
 * 2 usage error or not found, 130 stopped with Ctrl-C. Every command returns one of these,
 * and a thrown error maps to one by its code, never by its wording.
 */
import type { ErrorCode } from "../errors/index.ts";

export const EXIT = {
  /** Done. */
  ok: 0,
  /** Tried and failed: a download, a turn, a damaged database, a failed doctor check. */
  failed: 1,
  /** Wrong arguments or config, or what was named does not exist (nothing was changed). */
  usage: 2,
  /** Stopped with Ctrl-C (128 + SIGINT). */
  interrupted: 130,
} as const;

/** Codes that mean "you asked wrongly or for something that is not there". */
const USAGE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "CLI_USAGE",
  "CONFIG_INVALID",
  "CONFIG_UNREADABLE",
  "NOT_FOUND",
  "SESSION_NOT_FOUND",
  "SESSION_KEY_INVALID",
  "MODEL_NOT_FOUND",
]);

/** The exit code for an error that reached the command runner. */
export function exitCodeOf(code: ErrorCode): number {
  return USAGE_CODES.has(code) ? EXIT.usage : EXIT.failed;
}
