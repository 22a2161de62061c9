/**
 * Someone at the box who is not the service's user runs `clawbox pairing list` (or any
 * command that opens the database) against the service's home. Before: "unexpected
 * error: SQLiteError: attempt to write a readonly database" and a stack trace of src/
 * paths. Now: one plain line naming the file and what to do (the service's user, or
 * sudo), exit code 1, and the database unchanged. The user is uid 65534 through setpriv,
 * as in test/security/local-user-cannot-become-owner.test.ts.
 */
import { chmodSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CAN_DROP_TO_LOCAL_USER, localUserCanRun, runAsLocalUser } from "../support/local-user.ts";
import { runCli } from "../support/run-cli.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const reach = localUserCanRun(CLAWBOX_BIN);
const skip = !CAN_DROP_TO_LOCAL_USER || !reach.ok;
if (skip)
  console.warn(
    `unwritable database test skipped: ${CAN_DROP_TO_LOCAL_USER ? (reach.ok ? "" : reach.reason) : "setpriv is absent"}`,
  );

/** A home with a database made by the service's user (root here), readable by others. */
async function serviceHome(): Promise<{ home: string; db: string }> {
  const home = mkdtempSync(join(tmpdir(), "clawbox-rodb-"));
  chmodSync(home, 0o755);
  const made = await runCli(["--home", home, "pairing", "list"]);
  expect(made.code).toBe(0);
  return { home, db: join(home, "clawbox.db") };
}

/** Every command that opens the database fails the same way; a few of them on each file mode. */
const COMMANDS: Record<string, string[][]> = {
  "a read-only file": [
    ["pairing", "list"],
    ["pairing", "approve", "ABCD-EFGH"],
    ["sessions", "list"],
    ["cron", "list"],
    ["memory", "status"],
  ],
  "an unreadable file": [
    ["pairing", "list"],
    ["context", "list"],
  ],
};

describe("a database this user may not write", () => {
  it.skipIf(skip)(
    "gives every command one plain line naming the file and what to do, exit 1",
    async () => {
      const { home, db } = await serviceHome();
      const before = readFileSync(db);
      for (const [mode, what] of [
        [0o644, "a read-only file"],
        [0o600, "an unreadable file"],
      ] as const) {
        chmodSync(db, mode);
        for (const args of COMMANDS[what] ?? []) {
          const run = await runAsLocalUser(["env", `CLAWBOX_HOME=${home}`, CLAWBOX_BIN, ...args]);
          const where = `${args.join(" ")} on ${what}`;
          expect(run.status, where).toBe(1);
          expect(run.stderr, where).toContain(
            `clawbox ${args[0]}: this user (uid 65534) may not write the database ${db} or its folder`,
          );
          expect(run.stderr, where).toContain("sudo -u clawbox clawbox");
          expect(run.stderr, where).not.toContain("unexpected error");
          expect(run.stderr, where).not.toMatch(/\n\s+at |src\//);
          expect(run.stderr.trim().split("\n"), where).toHaveLength(1);
        }
      }
      // A home the user cannot even look into.
      chmodSync(db, 0o644);
      chmodSync(home, 0o700);
      const closed = await runAsLocalUser([
        "env",
        `CLAWBOX_HOME=${home}`,
        CLAWBOX_BIN,
        "sessions",
        "list",
      ]);
      expect(closed.status).toBe(1);
      expect(closed.stderr).toContain(`may not write the database ${db}`);
      expect(closed.stderr).not.toMatch(/\n\s+at /);
      expect(readFileSync(db).equals(before)).toBe(true);
    },
    // Nine CLI starts as another user: slow on a loaded 2-core machine, not what is tested.
    180_000,
  );
});
