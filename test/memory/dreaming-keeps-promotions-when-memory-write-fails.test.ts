import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";
import { runCli } from "../support/run-cli.ts";

const BUN = join(import.meta.dirname, "..", "..", "node_modules", ".bin", "bun");
const DREAM_ONCE = join(import.meta.dirname, "..", "support", "dream-once.ts");

/** A home whose one daily-note chunk was recalled, so a dreaming pass promotes it. */
function homeWithRecalledNote(existingMemory: string, noteLines: string[]): string {
  const home = mkdtempSync(join(tmpdir(), "clawbox-dream-"));
  const workspace = join(home, "workspace");
  mkdirSync(join(workspace, "memory"), { recursive: true });
  writeFileSync(join(workspace, "MEMORY.md"), existingMemory);
  const store = Store.open({ path: join(home, "clawbox.db") });
  const now = Date.now();
  store.db.run(
    "INSERT INTO memory_files(path, hash, mtime, size, indexed_at) VALUES ('memory/2025-04-01.md', 'h', 0, 0, 0)",
  );
  store.db.run(
    "INSERT INTO memory_chunks(id, path, start_line, end_line, hash, text, tokens, updated_at) VALUES ('c1', 'memory/2025-04-01.md', 1, 5, 'h', ?, 10, ?)",
    [noteLines.join("\n"), now],
  );
  store.db.run(
    "INSERT INTO memory_recalls(id, at, query, query_norm, mode) VALUES (1, ?, 'q', 'q', 'keyword')",
    [now],
  );
  store.db.run(
    "INSERT INTO memory_recall_hits(recall_id, chunk_id, path, start_line, end_line, score, snippet) VALUES (1, 'c1', 'memory/2025-04-01.md', 1, 5, 0.9, 's')",
  );
  store.close();
  return home;
}

function promotions(home: string): number {
  const store = Store.open({ path: join(home, "clawbox.db") });
  try {
    return (store.db.query("SELECT count(*) AS n FROM memory_promotions").get() as { n: number }).n;
  } finally {
    store.close();
  }
}

const hasDash = spawnSync("/bin/sh", ["-c", "ulimit -f 1"]).status === 0;

describe("dreaming on a card that cannot take the new MEMORY.md", () => {
  it.skipIf(!hasDash)(
    "keeps MEMORY.md whole and leaves the promotion for the next pass",
    () => {
      // 200 KB of curated memory; the promoted lines push the file past a 256 KB limit.
      const existing = `# Memory\n\n${"- an older curated fact that must survive\n".repeat(5000)}`;
      const longLine = (n: number) => `fact ${n}: ${"x".repeat(20_000)}`;
      const home = homeWithRecalledNote(existing, [1, 2, 3, 4, 5].map(longLine));
      const blocks = 512; // 512 blocks: 256 KiB (dash) or 512 KiB (bash) — both below the new size
      const limited = spawnSync(
        "/bin/sh",
        ["-c", `trap '' XFSZ; ulimit -f ${blocks}; exec "$0" "$1" "$2"`, BUN, DREAM_ONCE, home],
        { encoding: "utf8" },
      );
      expect(limited.stdout).toContain("failed EFBIG");
      expect(readFileSync(join(home, "workspace", "MEMORY.md"), "utf8")).toBe(existing);
      expect(promotions(home)).toBe(0);

      // With room again, the same pass promotes the note.
      const retry = execFileSync(BUN, [DREAM_ONCE, home], { encoding: "utf8" });
      expect(retry).toContain("promoted 5");
      expect(readFileSync(join(home, "workspace", "MEMORY.md"), "utf8")).toContain(longLine(5));
      expect(promotions(home)).toBe(1);
    },
    60_000,
  );
});

describe("memory dream on a fresh home", () => {
  it("runs and writes the diary instead of failing on the missing workspace", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-dream-"));
    const run = await runCli(["--home", home, "memory", "dream"]);
    expect(run.stderr).not.toContain("ENOENT");
    expect(run.code).toBe(0);
    expect(readFileSync(join(home, "workspace", "DREAMS.md"), "utf8")).toContain("# Dreams");
  });
});
