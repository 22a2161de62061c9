/**
 * Attack 7 of issue 23: `read` of a huge file without newlines (it joined the whole
 * file: 64 MB took 11 s and 1.27 GB), and a stranger granted the file tools growing a
 * file without end (`write` + `edit replaceAll`) or filling the disk. `read` now cuts
 * lines and stops after 16 MB; `write`, `edit` and `apply_patch` refuse files over
 * `tools.files.maxFileBytes` and writes that would leave less than
 * `tools.files.minFreeDiskBytes` free, with an error naming the limit.
 */
import { closeSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FileToolRig, fileToolRig } from "../support/file-tools.ts";

const STRANGER = { isOwner: false } as const;
let rig: FileToolRig;
beforeEach(() => {
  rig = fileToolRig();
});
afterEach(() => rig.close());

/** Writes `mb` MB of `unit` repeated (in 1 MB pieces, so the test itself stays small). */
function bigFile(name: string, mb: number, unit: string): string {
  const path = join(rig.workspace, name);
  const piece = unit.repeat(Math.ceil((1024 * 1024) / unit.length)).slice(0, 1024 * 1024);
  const fd = openSync(path, "w");
  for (let i = 0; i < mb; i++) writeSync(fd, piece);
  closeSync(fd);
  return path;
}

describe("read is bounded by bytes per line and in total", () => {
  it("a 32 MB file without a newline comes back as one cut line", async () => {
    bigFile("one-line.min.js", 32, "x");
    const out = await rig.run("read", { path: "one-line.min.js" }, STRANGER);
    expect(out.isError).toBe(false);
    expect(out.text.length).toBeLessThan(5_000);
    expect(out.text).toContain("line cut at 4000 characters");
  });

  it("stops after 16 MB of a larger file and says so", async () => {
    bigFile("log.txt", 24, "0123456789abcde\n");
    const out = await rig.run("read", { path: "log.txt", offset: 1_500_000, limit: 3 });
    expect(out.isError).toBe(false);
    expect(out.text).toContain("stopped after the first 16 MB");
    const near = await rig.run("read", { path: "log.txt", offset: 1_000_000, limit: 2 });
    expect(near.text).toBe("0123456789abcde\n0123456789abcde");
  });
});

describe("write, edit and apply_patch are capped per file and keep a disk reserve", () => {
  it("refuses a stranger's 2 MB write and an edit replaceAll that grows a file past the cap", async () => {
    const write = await rig.run(
      "write",
      { path: "notes/big.md", content: "a".repeat(2 * 1024 * 1024) },
      STRANGER,
    );
    expect(write.isError).toBe(true);
    expect(write.text).toContain("over the 1.0 MB limit for one file");
    expect(write.text).toContain("tools.files.maxFileBytes");
    writeFileSync(join(rig.workspace, "grow.md"), "a".repeat(700 * 1024));
    const edit = await rig.run(
      "edit",
      { path: "grow.md", oldText: "a", newText: "aa", replaceAll: true },
      STRANGER,
    );
    expect(edit.isError).toBe(true);
    expect(statSync(join(rig.workspace, "grow.md")).size).toBe(700 * 1024);
    const patch = await rig.run(
      "apply_patch",
      {
        patch: `*** Begin Patch\n*** Add File: added.md\n${`+${"b".repeat(1000)}\n`.repeat(1100)}*** End Patch`,
      },
      STRANGER,
    );
    expect(patch.isError).toBe(true);
    expect(patch.text).toContain("limit for one file");
  });

  it("takes the limits from tools.files and refuses a write below the free-disk reserve", async () => {
    const small = { fileLimits: { maxFileBytes: 4096, minFreeDiskBytes: 0 } };
    expect(
      (await rig.run("write", { path: "a.md", content: "x".repeat(4096) }, small)).isError,
    ).toBe(false);
    const over = await rig.run("write", { path: "a.md", content: "x".repeat(4097) }, small);
    expect(over.isError).toBe(true);
    expect(readFileSync(join(rig.workspace, "a.md"), "utf8")).toHaveLength(4096);
    const full = { fileLimits: { maxFileBytes: 1024 * 1024, minFreeDiskBytes: 2 ** 60 } };
    const reserve = await rig.run("write", { path: "b.md", content: "hello" }, full);
    expect(reserve.isError).toBe(true);
    expect(reserve.text).toContain("the disk would have less than");
    expect(reserve.text).toContain("tools.files.minFreeDiskBytes");
  });
});
