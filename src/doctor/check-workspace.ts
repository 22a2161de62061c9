/** The workspace exists and holds the bootstrap files; missing ones are named. */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
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
  const results: CheckResult[] = [
    missing.length === 0
      ? { name: "workspace", status: "ok", message: `${dir} (${EXPECTED.length} bootstrap files)` }
      : {
          name: "workspace",
          status: "warn",
          message: `${dir}: missing ${missing.join(", ")}`,
          fix: "restore them from a backup, or delete them all and start clawbox to re-create defaults",
        },
  ];
  if (existsSync(join(dir, "BOOTSTRAP.md"))) {
    results.push({
      name: "bootstrap",
      status: "ok",
      message: "BOOTSTRAP.md present: the first-run ritual runs on the next interactive chat",
    });
  }
  return results;
}
