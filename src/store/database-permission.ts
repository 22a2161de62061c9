/**
 * A database this user may not write (the service's own file, run as another user):
 * one plain line naming the file and what to do, the same for every command, instead of
 * SQLite's "attempt to write a readonly database" with a stack trace. Checked before
 * SQLite opens the file (it would open a write-protected file read-only and fail later,
 * at the first write) and recognised again if SQLite refuses a write after all.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname } from "node:path";
import { ClawboxError } from "../errors/index.ts";

/** SQLite's and the file system's "not for this user" errors. */
const NO_WRITE = /attempt to write a readonly database|SQLITE_READONLY|SQLITE_PERM/i;

export function isPermissionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code === "EACCES" || code === "EPERM") return true;
  return NO_WRITE.test(error.message) || (typeof code === "string" && NO_WRITE.test(code));
}

function whoAmI(): string {
  const uid = `uid ${process.getuid?.() ?? "?"}`;
  try {
    const name = userInfo().username;
    return name && name !== "unknown" ? `${name}, ${uid}` : uid;
  } catch {
    return uid;
  }
}

export function unwritableDatabaseError(path: string, cause?: unknown): ClawboxError {
  return new ClawboxError(
    "STORE_OPEN_FAILED",
    `this user (${whoAmI()}) may not write the database ${path} or its folder`,
    {
      hint: 'run the command as the user the service runs as ("sudo -u clawbox clawbox …") or with sudo',
      ...(cause ? { cause } : {}),
    },
  );
}

/**
 * Throws the plain error when this user cannot read and write `path`, its WAL files or
 * its folder (SQLite creates `-wal` and `-shm` beside the file).
 */
export function checkDatabaseWritable(path: string): void {
  const needed = [dirname(path), path, `${path}-wal`, `${path}-shm`];
  try {
    for (const file of needed) {
      if (file === dirname(path) || existsSync(file))
        accessSync(file, constants.R_OK | constants.W_OK);
    }
  } catch (error) {
    if (isPermissionFailure(error)) throw unwritableDatabaseError(path, error);
    throw error;
  }
}
