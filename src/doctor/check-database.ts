/** The database opens, passes integrity_check, and has sqlite-vec and FTS5. */

import { errorMessage } from "../errors/index.ts";
import { DAMAGED_DATABASE_HINT, damagedDatabaseError, type Store } from "../store/index.ts";
import type { CheckResult } from "./doctor-check.ts";

export function checkDatabase(open: () => Store): CheckResult[] {
  let store: Store;
  try {
    store = open();
  } catch (error) {
    return [
      {
        name: "database",
        status: "fail",
        message: errorMessage(error),
        fix: "check the home folder permissions; for a damaged or empty clawbox.db, follow the advice above",
      },
    ];
  }
  const results: CheckResult[] = [];
  const integrity = store.integrityCheck();
  results.push(
    integrity === "ok"
      ? { name: "database", status: "ok", message: `${store.path} integrity ok` }
      : {
          name: "database",
          status: "fail",
          message: damagedDatabaseError(store.path, `integrity_check: ${integrity}`).message,
          fix: DAMAGED_DATABASE_HINT,
        },
  );
  results.push(
    store.vecVersion
      ? { name: "sqlite-vec", status: "ok", message: store.vecVersion }
      : {
          name: "sqlite-vec",
          status: "warn",
          message: store.vecError ?? "not loaded",
          fix: "reinstall clawbox (lib/vec0.so) or set CLAWBOX_SQLITE_VEC; memory search is keyword-only meanwhile",
        },
  );
  try {
    store.db.run("CREATE VIRTUAL TABLE temp.doctor_fts USING fts5(x)");
    store.db.run("DROP TABLE temp.doctor_fts");
    results.push({ name: "fts5", status: "ok", message: "available" });
  } catch (error) {
    results.push({
      name: "fts5",
      status: "fail",
      message: errorMessage(error),
      fix: "this SQLite build lacks FTS5; use the clawbox binary from the release",
    });
  }
  return results;
}
