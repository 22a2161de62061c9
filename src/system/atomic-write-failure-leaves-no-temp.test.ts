/**
 * A failed atomic write leaves the old file as it was and removes its temp file
 * (DEVELOPING.md: writeFileAtomic), so failures never pile `.NAME.PID.ID.tmp` files up in
 * the workspace or the config folder. Issue 37 ("three promises no test guards").
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "./atomic-write.ts";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("writeFileAtomic on failure", () => {
  it("removes its temp file when the rename fails, and throws the fs error", () => {
    dir = mkdtempSync(join(tmpdir(), "clawbox-atomic-"));
    writeFileSync(join(dir, "notes.md"), "待办：买牛奶\n");
    // A folder where the file would go: the temp file is written, the rename fails.
    mkdirSync(join(dir, "MEMORY.md"));
    writeFileSync(join(dir, "MEMORY.md", "keep.md"), "x");
    expect(() => writeFileAtomic(join(dir as string, "MEMORY.md"), "新的记忆\n")).toThrow(
      /EISDIR|ENOTEMPTY|EEXIST|directory/i,
    );
    expect(readdirSync(dir).sort()).toEqual(["MEMORY.md", "notes.md"]);
    expect(readdirSync(join(dir, "MEMORY.md"))).toEqual(["keep.md"]);
    expect(readFileSync(join(dir, "notes.md"), "utf8")).toBe("待办：买牛奶\n");
  });
});
