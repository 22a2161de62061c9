/** The home folder exists (or can be created) and is writable. */
import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import type { CheckResult } from "./doctor-check.ts";

export function checkHome(home: string): CheckResult {
  try {
    if (!existsSync(home)) mkdirSync(home, { recursive: true });
    accessSync(home, constants.W_OK);
    return { name: "home", status: "ok", message: home };
  } catch (error) {
    return {
      name: "home",
      status: "fail",
      message: `${home} is not writable: ${error instanceof Error ? error.message : String(error)}`,
      fix: "choose another folder with --home or CLAWBOX_HOME, or fix its owner",
    };
  }
}
