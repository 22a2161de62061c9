import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, PAGE_CACHE_KIB } from "./open-database.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("openDatabase memory pragmas", () => {
  it("bounds the page cache of every connection, new file or reopened, and maps nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-open-db-"));
    dirs.push(dir);
    const path = join(dir, "clawbox.sqlite");
    for (const readonly of [false, false, true]) {
      const { db } = openDatabase({ path, readonly });
      try {
        expect(db.query("PRAGMA cache_size").get()).toEqual({ cache_size: -PAGE_CACHE_KIB });
        // Memory-mapped I/O would put the growing file's pages into RSS.
        expect(db.query("PRAGMA mmap_size").get()).toEqual({ mmap_size: 0 });
      } finally {
        db.close();
      }
    }
    expect(PAGE_CACHE_KIB).toBeLessThan(2000);
  });
});
