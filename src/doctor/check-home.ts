/**
 * The home folder exists (or can be created), is writable, and is closed to other local
 * users: it holds transcripts, MEMORY.md and USER.md, the config's secrets and the
 * console secret. A home other users can enter is a warning with the chmod that fixes
 * it (the packaged service's /var/lib/clawbox is 0750 and passes).
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { errorMessage } from "../errors/index.ts";
import type { CheckResult } from "./doctor-check.ts";

export function checkHome(home: string): CheckResult {
  try {
    if (!existsSync(home)) mkdirSync(home, { recursive: true, mode: 0o700 });
    accessSync(home, constants.W_OK);
  } catch (error) {
    return {
      name: "home",
      status: "fail",
      message: `${home} is not writable: ${errorMessage(error)}`,
      fix: "choose another folder with --home or CLAWBOX_HOME, or fix its owner",
    };
  }
  const mode = statSync(home).mode & 0o777;
  if ((mode & 0o005) !== 0) {
    return {
      name: "home",
      status: "warn",
      message: `${home} is open to other local users (mode ${mode.toString(8).padStart(3, "0")}): they can read transcripts, MEMORY.md and secrets in it`,
      fix: `chmod o-rwx ${home}`,
    };
  }
  return { name: "home", status: "ok", message: home };
}
