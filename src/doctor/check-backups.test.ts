/**
 * `clawbox doctor`'s backups line (docs/BACKUP.md, "Automatic backups"): a missing,
 * unwritable or full folder, a missing passphrase file and an overdue backup are
 * warnings with a fix; a recent backup is ok with its time and size.
 */
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkBackups } from "./check-backups.ts";

function folder() {
  const root = mkdtempSync(join(tmpdir(), "clawbox-doctor-backups-"));
  mkdirSync(join(root, "usb"));
  writeFileSync(join(root, "passphrase"), "correct horse battery\n");
  return root;
}

describe("doctor: backups", () => {
  it("is ok without backup.dir, saying how to make one", async () => {
    expect(await checkBackups({ everyHours: 24, keep: 7 }, folder())).toEqual([
      expect.objectContaining({
        status: "ok",
        message: expect.stringContaining("clawbox backup create"),
      }),
    ]);
  });

  it("warns about a missing folder and a missing passphrase file", async () => {
    const root = folder();
    const [missing] = await checkBackups(
      { dir: "unmounted", everyHours: 24, keep: 7, passphraseFile: "passphrase" },
      root,
    );
    expect(missing).toMatchObject({
      status: "warn",
      message: `the backup folder ${join(root, "unmounted")} does not exist: no automatic backups are being made`,
    });
    const [noPass] = await checkBackups({ dir: "usb", everyHours: 24, keep: 7 }, root);
    expect(noPass).toMatchObject({
      status: "warn",
      message: expect.stringContaining("backup.passphraseFile"),
    });
  });

  it("reports the last backup, and warns once it is overdue", async () => {
    const root = folder();
    const file = join(root, "usb", "clawbox-backup-home-20261206T030000Z.age");
    writeFileSync(file, Buffer.alloc(2048));
    const config = { dir: "usb", everyHours: 24, keep: 7, passphraseFile: "passphrase" };
    const [recent] = await checkBackups(config, root);
    expect(recent).toMatchObject({
      status: "ok",
      message: expect.stringMatching(/^last backup .*\(2\.05 kB\), 1 in /),
    });
    const threeDaysAgo = (Date.now() - 3 * 86_400_000) / 1000;
    utimesSync(file, threeDaysAgo, threeDaysAgo);
    const [overdue] = await checkBackups(config, root);
    expect(overdue).toMatchObject({ status: "warn", message: expect.stringContaining("overdue") });
  });
});
