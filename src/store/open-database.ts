/**
 * Opens the one SQLite file of the box. WAL with synchronous=FULL: a committed write
 * (an incoming user message above all) survives a power cut, and readers never block
 * the writer. sqlite-vec is loaded at open; its absence is reported, not fatal, so
 * the box still chats (memory search falls back to keyword-only).
 */
import { Database } from "bun:sqlite";
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import { applyMigrations } from "./apply-migrations.ts";
import { damagedDatabaseError, emptyDatabaseError, isDatabaseDamage } from "./database-damage.ts";
import {
  checkDatabaseWritable,
  isPermissionFailure,
  unwritableDatabaseError,
} from "./database-permission.ts";
import { MIGRATIONS, type Migration } from "./migrations/index.ts";
import { findSqliteVec, sqliteVecCandidates } from "./sqlite-vec-path.ts";

/**
 * SQLite's page cache per connection, in KiB (its default is 2,000). It fills as the
 * database grows, so on a box that keeps months of transcripts it is RSS that creeps up
 * turn after turn; a turn reads a few recent pages of one session, which stay cached.
 */
export const PAGE_CACHE_KIB = 512;

export interface OpenDatabaseOptions {
  /** File path, or ":memory:". */
  path: string;
  migrations?: readonly Migration[];
  /** Fail when sqlite-vec cannot be loaded (default false: report and go on). */
  requireVec?: boolean;
  readonly?: boolean;
}

export interface OpenedDatabase {
  db: Database;
  /** sqlite-vec version, or undefined when the extension is not loaded. */
  vecVersion: string | undefined;
  vecError: string | undefined;
  migrated: number[];
}

export function openDatabase(options: OpenDatabaseOptions): OpenedDatabase {
  if (options.path !== ":memory:") {
    try {
      mkdirSync(dirname(options.path), { recursive: true });
      // SQLite would treat an emptied file as new and silently start over: refuse instead.
      if (statSync(options.path, { throwIfNoEntry: false })?.size === 0) {
        throw emptyDatabaseError(options.path);
      }
    } catch (error) {
      if (isPermissionFailure(error)) throw unwritableDatabaseError(options.path, error);
      throw error;
    }
    if (!options.readonly) checkDatabaseWritable(options.path);
  }
  let db: Database;
  try {
    db = new Database(options.path, options.readonly ? { readonly: true } : { create: true });
  } catch (error) {
    throw new ClawboxError("STORE_OPEN_FAILED", `cannot open database ${options.path}`, {
      hint: "check that the folder exists and is writable",
      cause: error,
    });
  }
  try {
    return configure(db, options);
  } catch (error) {
    db.close();
    if (isDatabaseDamage(error)) {
      throw damagedDatabaseError(options.path, (error as Error).message, error);
    }
    if (isPermissionFailure(error)) throw unwritableDatabaseError(options.path, error);
    throw error;
  }
}

function configure(db: Database, options: OpenDatabaseOptions): OpenedDatabase {
  db.run("PRAGMA busy_timeout = 5000");
  if (!options.readonly) {
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = FULL");
  }
  db.run("PRAGMA foreign_keys = ON");
  db.run(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);

  let vecVersion: string | undefined;
  let vecError: string | undefined;
  const vecPath = findSqliteVec();
  if (vecPath) {
    try {
      db.loadExtension(vecPath);
      vecVersion = (db.query("SELECT vec_version() AS v").get() as { v: string }).v;
    } catch (error) {
      vecError = `failed to load ${vecPath}: ${errorMessage(error)}`;
    }
  } else {
    vecError = `sqlite-vec not found (looked in ${sqliteVecCandidates().join(", ")})`;
  }
  if (options.requireVec && !vecVersion) {
    db.close();
    throw new ClawboxError("STORE_EXTENSION_MISSING", vecError ?? "sqlite-vec not loaded", {
      hint: "reinstall clawbox or set CLAWBOX_SQLITE_VEC to the vec0.so path",
    });
  }
  const migrated = options.readonly ? [] : applyMigrations(db, options.migrations ?? MIGRATIONS);
  return { db, vecVersion, vecError, migrated };
}
