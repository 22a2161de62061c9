/**
 * docs/BACKUP.md, "Making one": at a terminal, `clawbox backup create` asks for the
 * passphrase twice without echo and refuses two that differ (writing nothing);
 * `clawbox backup restore` asks once, and the passphrase typed then opens the backup.
 * The passphrase never shows on the terminal.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HAVE_PYTHON_PTY, ptyCli } from "../support/pty-cli.ts";

const PASSPHRASE = "绣球花 blue hydrangea 42";

if (!HAVE_PYTHON_PTY) console.warn("skipped: python3 with the pty module is missing");

describe.skipIf(!HAVE_PYTHON_PTY)("clawbox backup at a terminal", () => {
  it("asks twice when creating, once when restoring, and never echoes", async () => {
    const root = mkdtempSync(join(tmpdir(), "clawbox-backup-tty-"));
    const home = join(root, "box");
    mkdirSync(home);
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({ server: { token: "t".repeat(24) } }),
    );
    const out = join(root, "out");
    mkdirSync(out);
    const file = join(out, "box.age");

    const mismatch = ptyCli(["backup", "create", "-o", file], { CLAWBOX_HOME: home });
    await mismatch.waitFor("Backup passphrase: ");
    mismatch.type(`${PASSPHRASE}\r`);
    await mismatch.waitFor("Same passphrase again: ");
    mismatch.type("something else entirely\r");
    expect(await mismatch.exited).toBe(2);
    expect(mismatch.output()).toContain("the two passphrases differ; nothing was written");
    expect(readdirSync(out)).toEqual([]);

    const create = ptyCli(["backup", "create", "-o", file], { CLAWBOX_HOME: home });
    await create.waitFor("Backup passphrase: ");
    create.type(`${PASSPHRASE}\r`);
    await create.waitFor("Same passphrase again: ");
    create.type(`${PASSPHRASE}\r`);
    expect(await create.exited).toBe(0);
    expect(create.output()).toContain(`backup written to ${file}`);
    expect(create.output()).not.toContain("hydrangea");

    const fresh = join(root, "fresh");
    const restore = ptyCli(["backup", "restore", file], { CLAWBOX_HOME: fresh });
    await restore.waitFor("Backup passphrase: ");
    restore.type(`${PASSPHRASE}\r`);
    expect(await restore.exited).toBe(0);
    expect(restore.output()).toContain(`into ${fresh}`);
    expect(restore.output()).not.toContain("Same passphrase again");
    expect(restore.output()).not.toContain("hydrangea");
    expect(readdirSync(fresh)).toContain("clawbox.json");
  }, 180_000);
});
