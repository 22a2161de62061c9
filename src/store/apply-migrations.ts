/**
 * Applies pending migrations, each in one transaction with its version row, so a
 * crash mid-migration leaves the database at the previous version, never in between.
 */
import type { Database } from "bun:sqlite";
import { ClawboxError, errorMessage } from "../errors/index.ts";
import type { Migration } from "./migrations/index.ts";

export function applyMigrations(db: Database, migrations: readonly Migration[]): number[] {
  db.run(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  const seen = new Set<number>();
  for (const m of migrations) {
    if (seen.has(m.version)) {
      throw new ClawboxError("STORE_MIGRATION_FAILED", `duplicate migration version ${m.version}`);
    }
    seen.add(m.version);
  }
  const applied = new Set(
    (db.query("SELECT version FROM schema_migrations").all() as { version: number }[]).map(
      (r) => r.version,
    ),
  );
  const done: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    try {
      db.transaction(() => {
        db.run(migration.sql);
        db.run("INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)", [
          migration.version,
          migration.name,
          Date.now(),
        ]);
      })();
    } catch (error) {
      throw new ClawboxError(
        "STORE_MIGRATION_FAILED",
        `migration ${migration.version} (${migration.name}) failed: ${errorMessage(error)}`,
        {
          hint: "restore the database from a backup or move it aside to start fresh",
          cause: error,
        },
      );
    }
    done.push(migration.version);
  }
  return done;
}
