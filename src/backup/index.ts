/**
 * Backups (issue 42): one encrypted file (age format) with the database as SQLite's
 * consistent copy, the home's files (config with its secrets, console secret,
 * workspace) and the models by name and hash; restored through a staging folder that
 * is swapped in only once every file checked out. Loaded only by `clawbox backup`:
 * nothing here is on `clawbox run`'s start path.
 */
export {
  BACKUP_FORMAT,
  type BackupManifest,
  type BackupModel,
} from "./backup-manifest.ts";
export { type CreatedBackup, createBackup, defaultBackupName } from "./create-backup.ts";
export { type RestoredBackup, restoreBackup } from "./restore-backup.ts";
