/**
 * Automatic backups (`backup.dir`, docs/BACKUP.md): the folder is there and writable,
 * has room for the next backup, the passphrase file is readable, and the newest backup
 * is not overdue. Each problem is a warning with its fix, never a failure: the box
 * works without backups, the owner should know it is without them.
 */
import { accessSync, constants, statfsSync, statSync } from "node:fs";
import type { BackupConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import { formatBytes } from "../system/index.ts";
import type { CheckResult } from "./doctor-check.ts";

/** Room asked for when there is no backup yet to measure the next one by. */
const MIN_FREE_BYTES = 64 * 1024 * 1024;

/** Async only to import the backup area when asked (the console's status page imports doctor/). */
export async function checkBackups(
  config: BackupConfig,
  home: string,
  now = Date.now(),
): Promise<CheckResult[]> {
  const { backupTargets, listBackups, readPassphraseFile } = await import("../backup/index.ts");
  const { dir, passphraseFile } = backupTargets(config, home);
  const name = "backups";
  if (dir === undefined)
    return [
      {
        name,
        status: "ok",
        message: "no automatic backups (backup.dir is not set); clawbox backup create makes one",
      },
    ];
  const warn = (message: string, fix: string): CheckResult[] => [
    { name, status: "warn", message, fix },
  ];
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    return warn(
      `the backup folder ${dir} does not exist: no automatic backups are being made`,
      "mount the USB stick or NAS share, or set backup.dir to a folder that exists",
    );
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return warn(
      `the backup folder ${dir} is not writable by this user`,
      "give the service's user write access (chown clawbox), or choose another backup.dir",
    );
  }
  if (passphraseFile === undefined)
    return warn(
      "backup.passphraseFile is not set: automatic backups need it",
      "write the passphrase in a file (chmod 600) and set backup.passphraseFile to it",
    );
  try {
    readPassphraseFile(passphraseFile);
  } catch (error) {
    return warn(
      errorMessage(error),
      "fix backup.passphraseFile (its first line is the passphrase)",
    );
  }
  const backups = listBackups(dir);
  const newest = backups[0];
  const { bavail, bsize } = statfsSync(dir);
  const free = Number(bavail) * Number(bsize);
  const needed = newest ? Math.ceil(newest.bytes * 1.2) : MIN_FREE_BYTES;
  if (free < needed)
    return warn(
      `the backup folder ${dir} is full: ${formatBytes(free)} free, the next backup needs about ${formatBytes(needed)}`,
      "free space there, lower backup.keep, or use a larger stick",
    );
  if (!newest)
    return [
      {
        name,
        status: "ok",
        message: `${dir}: no backup yet; the running service writes the first within an hour (15 s after it starts)`,
      },
    ];
  const overdue = now - newest.mtimeMs > 2 * config.everyHours * 3_600_000;
  const last = `last backup ${new Date(newest.mtimeMs).toISOString()} (${formatBytes(newest.bytes)}), ${backups.length} in ${dir}`;
  return overdue
    ? warn(
        `${last}: overdue (backup.everyHours is ${config.everyHours})`,
        "check the service's log for 'backup not written' (journalctl -u clawbox)",
      )
    : [{ name, status: "ok", message: last }];
}
