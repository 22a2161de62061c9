/**
 * Automatic backups (`backup.dir`): when the newest backup in the folder is older than
 * `backup.everyHours`, write a new one there (the same file `clawbox backup create`
 * writes) and remove the oldest beyond `backup.keep`. A folder that is missing (an
 * unmounted USB stick), full or unwritable, or a missing passphrase file, is an outcome
 * to log and for `clawbox doctor` to show, never an exception: a backup must not fail
 * a turn or stop the service.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BackupConfig } from "../config/index.ts";
import { errorMessage } from "../errors/index.ts";
import type { HomePaths } from "../system/index.ts";
import { createBackup, defaultBackupName } from "./create-backup.ts";
import { readPassphraseFile } from "./passphrase-file.ts";

/** Names `clawbox backup create` gives by default; only these are counted and pruned. */
const BACKUP_NAME = /^clawbox-backup-.*\.age$/;

export interface BackupFileInfo {
  file: string;
  bytes: number;
  mtimeMs: number;
}

/** `backup.dir` and `backup.passphraseFile` resolved against the home. */
export function backupTargets(config: BackupConfig, home: string) {
  return {
    dir: config.dir === undefined ? undefined : resolve(home, config.dir),
    passphraseFile:
      config.passphraseFile === undefined ? undefined : resolve(home, config.passphraseFile),
  };
}

/** The backups in `dir`, newest first (empty when the folder cannot be read). */
export function listBackups(dir: string): BackupFileInfo[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => BACKUP_NAME.test(name))
    .flatMap((name) => {
      const stat = statSync(join(dir, name), { throwIfNoEntry: false });
      return stat?.isFile()
        ? [{ file: join(dir, name), bytes: stat.size, mtimeMs: stat.mtimeMs }]
        : [];
    })
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
}

export type AutoBackupOutcome =
  | { status: "off" }
  | { status: "not-due"; nextAt: number }
  | { status: "written"; file: string; bytes: number; removed: string[] }
  | { status: "failed"; message: string };

export interface AutoBackupOptions {
  config: BackupConfig;
  paths: HomePaths;
  version: string;
  now?: Date;
  /**
   * Writes one backup to `output`; returns why it failed, or undefined. `clawbox run`
   * runs `clawbox backup create` as a child (scrypt's CPU and memory stay out of the
   * service); default: in this process.
   */
  write?: (output: string, passphraseFile: string) => Promise<string | undefined>;
}

function autoBackupFailure(error: unknown, dir: string): string {
  const code = (error as { code?: string }).code;
  if (code === "ENOSPC" || code === "EDQUOT") return `the backup folder ${dir} is full`;
  if (code === "EACCES" || code === "EPERM" || code === "EROFS")
    return `the backup folder ${dir} is not writable (${code})`;
  return errorMessage(error);
}

/** Writes a backup to `backup.dir` when one is due; never throws. */
export async function runAutoBackup(options: AutoBackupOptions): Promise<AutoBackupOutcome> {
  const { dir, passphraseFile } = backupTargets(options.config, options.paths.home);
  if (dir === undefined) return { status: "off" };
  const now = options.now ?? new Date();
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    return {
      status: "failed",
      message: `the backup folder ${dir} does not exist (is the USB stick or NAS mounted?)`,
    };
  const newest = listBackups(dir)[0];
  const dueAt = newest ? newest.mtimeMs + options.config.everyHours * 3_600_000 : 0;
  if (dueAt > now.getTime()) return { status: "not-due", nextAt: dueAt };
  if (passphraseFile === undefined)
    return { status: "failed", message: "backup.passphraseFile is not set" };
  const output = join(dir, defaultBackupName(options.paths.home, now));
  const inProcess = async (file: string, from: string) => {
    await createBackup({
      paths: options.paths,
      output: file,
      passphrase: readPassphraseFile(from),
      version: options.version,
      now,
    });
    return undefined;
  };
  try {
    readPassphraseFile(passphraseFile);
    const failed = await (options.write ?? inProcess)(output, passphraseFile);
    if (failed !== undefined) return { status: "failed", message: failed };
    const removed = listBackups(dir)
      .slice(options.config.keep)
      .map((old) => {
        rmSync(old.file, { force: true });
        return old.file;
      });
    return { status: "written", file: output, bytes: statSync(output).size, removed };
  } catch (error) {
    return { status: "failed", message: autoBackupFailure(error, dir) };
  }
}
