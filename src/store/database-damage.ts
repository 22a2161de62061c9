/**
 * One plain-words description of a damaged or emptied database, shared by every
 * command and by `clawbox doctor`, so the owner reads the same thing everywhere
 * (never a stack trace) and learns what to do.
 */
import { ClawboxError } from "../errors/index.ts";

const DAMAGE = /file is not a database|database disk image is malformed|SQLITE_(CORRUPT|NOTADB)/i;

/** True for SQLite's "this file is damaged" errors (not for busy or permission errors). */
export function isDatabaseDamage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return DAMAGE.test(error.message) || (typeof code === "string" && DAMAGE.test(code));
}

export const DAMAGED_DATABASE_HINT =
  "stop clawbox and keep a copy of the file; then restore a backup, or recover what is readable with " +
  "`sqlite3 clawbox.db .recover | sqlite3 recovered.db` and move recovered.db in its place; " +
  "`clawbox doctor` shows the details";

export function damagedDatabaseError(path: string, detail: string, cause?: unknown): ClawboxError {
  return new ClawboxError("STORE_CORRUPT", `the database ${path} is damaged (${detail})`, {
    hint: DAMAGED_DATABASE_HINT,
    ...(cause ? { cause } : {}),
  });
}

export function emptyDatabaseError(path: string): ClawboxError {
  return new ClawboxError(
    "STORE_CORRUPT",
    `the database ${path} is empty (0 bytes): the sessions and memory it held are not in it`,
    {
      hint: `restore clawbox.db from a backup; to start over with no history, move the empty file aside (mv ${path} ${path}.empty)`,
    },
  );
}

/** The database error as the shared plain message, or undefined when it is not damage. */
export function describeDatabaseFailure(error: unknown, path: string): ClawboxError | undefined {
  if (error instanceof ClawboxError && error.code === "STORE_CORRUPT") return error;
  if (!isDatabaseDamage(error)) return undefined;
  return damagedDatabaseError(path, (error as Error).message, error);
}
