import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitFileAtomic } from "./atomic-write.ts";

describe("commitFileAtomic", () => {
  it("moves a file written by someone else into place, replacing the old one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-commit-"));
    writeFileSync(join(dir, "state.kv"), "old");
    writeFileSync(join(dir, ".state.kv.tmp"), "new");
    await commitFileAtomic(join(dir, ".state.kv.tmp"), join(dir, "state.kv"));
    expect(readFileSync(join(dir, "state.kv"), "utf8")).toBe("new");
    expect(readdirSync(dir)).toEqual(["state.kv"]);
  });

  it("a failed commit leaves the old file and no temp file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-commit-"));
    writeFileSync(join(dir, "state.kv"), "old");
    writeFileSync(join(dir, ".state.kv.tmp"), "new");
    // The target's folder is gone: the rename fails.
    await expect(
      commitFileAtomic(join(dir, ".state.kv.tmp"), join(dir, "missing", "state.kv")),
    ).rejects.toThrow();
    expect(readFileSync(join(dir, "state.kv"), "utf8")).toBe("old");
    expect(existsSync(join(dir, ".state.kv.tmp"))).toBe(false);
  });
});
