/**
 * The home folder before a command touches it. A home that does not exist yet is
 * created (one folder, said on stderr) only when its parent exists: a mistyped
 * `--home /nonexistent/deep/dir` is refused with nothing created, instead of growing a
 * new empty box that then reports "no sessions yet". A created home is 0700: it will hold
 * transcripts, MEMORY.md, the config's secrets and the console secret, none of which
 * another local user may read.
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { ClawboxError } from "../errors/index.ts";

/** Creates `home` when missing (parent must exist); returns true when it was created. */
export function ensureHome(home: string): boolean {
  if (existsSync(home)) {
    if (!statSync(home).isDirectory()) {
      throw new ClawboxError("CLI_USAGE", `home ${home} is not a folder`, {
        hint: "check --home or CLAWBOX_HOME",
      });
    }
    return false;
  }
  const parent = dirname(home);
  if (!existsSync(parent)) {
    throw new ClawboxError(
      "NOT_FOUND",
      `home ${home} does not exist, nor does its parent ${parent}; nothing was created`,
      { hint: "check --home or CLAWBOX_HOME, or create the folder first (mkdir -p)" },
    );
  }
  mkdirSync(home, { mode: 0o700 });
  return true;
}
