/**
 * docs/BACKUP.md, "Automatic backups": a backup is written to `backup.dir` when the
 * newest one there is older than `backup.everyHours`, the oldest beyond `backup.keep`
 * are removed, and a missing folder or passphrase file is an outcome, never a throw.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { homePaths } from "../system/index.ts";
import { runAutoBackup } from "./auto-backup.ts";

const HOUR = 3_600_000;

function box() {
  const root = mkdtempSync(join(tmpdir(), "clawbox-auto-backup-"));
  const home = join(root, "home");
  mkdirSync(join(home, "workspace"), { recursive: true });
  writeFileSync(join(home, "clawbox.json"), '{ server: { token: "auto-backup-token-0123" } }');
  writeFileSync(join(home, "workspace", "MEMORY.md"), "# 记忆\n");
  writeFileSync(join(root, "passphrase"), "correct horse battery\n");
  return { root, home, paths: homePaths(home, undefined, {}) };
}

describe("automatic backups", () => {
  it("writes when due, waits when not, keeps the newest N", async () => {
    const { root, paths } = box();
    const dir = join(root, "usb");
    mkdirSync(dir);
    const config = { dir, everyHours: 24, keep: 2, passphraseFile: join(root, "passphrase") };
    const at = (hours: number) => new Date(Date.now() + hours * HOUR);
    const first = await runAutoBackup({ config, paths, version: "0.1.0", now: at(0) });
    expect(first).toMatchObject({ status: "written", removed: [] });
    expect(await runAutoBackup({ config, paths, version: "0.1.0", now: at(1) })).toMatchObject({
      status: "not-due",
    });
    expect(await runAutoBackup({ config, paths, version: "0.1.0", now: at(25) })).toMatchObject({
      status: "written",
      removed: [],
    });
    const third = await runAutoBackup({ config, paths, version: "0.1.0", now: at(50) });
    expect(third.status).toBe("written");
    const kept = readdirSync(dir).sort();
    expect(kept).toHaveLength(2);
    expect(third).toMatchObject({ removed: [first.status === "written" ? first.file : ""] });
    expect(kept.every((name) => /^clawbox-backup-home-\d{8}T\d{6}Z\.age$/.test(name))).toBe(true);
  }, 120_000);

  it("a missing folder or passphrase file is an outcome with the reason, never a throw", async () => {
    const { root, paths } = box();
    const missing = { dir: join(root, "unmounted"), everyHours: 24, keep: 7 };
    expect(await runAutoBackup({ config: missing, paths, version: "0.1.0" })).toEqual({
      status: "failed",
      message: `the backup folder ${join(root, "unmounted")} does not exist (is the USB stick or NAS mounted?)`,
    });
    mkdirSync(join(root, "usb"));
    const noPass = {
      dir: join(root, "usb"),
      everyHours: 24,
      keep: 7,
      passphraseFile: join(root, "nope"),
    };
    expect(await runAutoBackup({ config: noPass, paths, version: "0.1.0" })).toEqual({
      status: "failed",
      message: `cannot read the passphrase file ${join(root, "nope")}`,
    });
    expect(readdirSync(join(root, "usb"))).toEqual([]);
    expect(
      await runAutoBackup({ config: { everyHours: 24, keep: 7 }, paths, version: "0" }),
    ).toEqual({
      status: "off",
    });
  });
});
