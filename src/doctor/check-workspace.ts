/**
 * The workspace exists and holds the bootstrap files; missing ones are named, and a
 * bootstrap file that is a symlink leading outside the workspace is a failure (it is
 * refused, never put in the prompt).
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { BOOTSTRAP_FILE_NAMES, outsideWorkspace } from "../workspace/index.ts";
import type { CheckResult } from "./doctor-check.ts";

const EXPECTED = ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md"];

export function checkWorkspace(dir: string): CheckResult[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    return [
      {
        name: "workspace",
        status: "warn",
        message: `${dir} does not exist yet`,
        fix: 'run "clawbox run" or "clawbox chat" once to create it with default files',
      },
    ];
  }
  const missing = EXPECTED.filter((f) => !existsSync(join(dir, f)));
  // Counted as they are on disk: BOOTSTRAP.md and MEMORY.md come and go.
  const present = [...BOOTSTRAP_FILE_NAMES, "memory.md"].filter(
    (f) => (f !== "memory.md" || !existsSync(join(dir, "MEMORY.md"))) && existsSync(join(dir, f)),
  ).length;
  const results: CheckResult[] = [
    missing.length === 0
      ? { name: "workspace", status: "ok", message: `${dir} (${present} bootstrap files)` }
      : {
          name: "workspace",
          status: "warn",
          message: `${dir}: missing ${missing.join(", ")}`,
          fix: "restore them from a backup, or delete them all and start clawbox to re-create defaults",
        },
  ];
  const realRoot = realpathSync(dir);
  for (const name of [...BOOTSTRAP_FILE_NAMES, "memory.md"]) {
    const why = outsideWorkspace(join(dir, name), realRoot);
    if (why)
      results.push({
        name: `bootstrap ${name}`,
        status: "fail",
        message: `${join(dir, name)}: ${why}; it is left out of the prompt`,
        fix: `replace the link with a real file: rm ${join(dir, name)} and write the file in the workspace`,
      });
  }
  if (existsSync(join(dir, "BOOTSTRAP.md"))) {
    results.push({
      name: "bootstrap",
      status: "ok",
      message: "BOOTSTRAP.md present: the first-run ritual runs on the next interactive chat",
    });
  }
  return results;
}
