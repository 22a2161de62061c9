/**
 * Backups (issue 42): one encrypted file (age format) with the database as SQLite's
 * consistent copy, the home's files (config with its secrets, console secret,
 * workspace) and the models by name and hash; restored through a staging folder that
 * is swapped in only once every file checked out; automatic backups to `backup.dir`.
 * Loaded only by `clawbox backup`, `clawbox doctor` and, when a backup is due, by
 * `clawbox run` (a dynamic import): nothing here is on the service's start path.
 */
export {
  type AutoBackupOutcome,
  type BackupFileInfo,
  backupTargets,
  listBackups,
  runAutoBackup,
} from "./auto-backup.ts";
export { type CreatedBackup, createBackup, defaultBackupName } from "./create-backup.ts";
export { checkPassphrase, readPassphraseFile } from "./passphrase-file.ts";
export { type RestoredBackup, restoreBackup } from "./restore-backup.ts";
