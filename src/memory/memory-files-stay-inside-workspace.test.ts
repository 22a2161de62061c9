import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listMemoryFiles, resolveMemoryPath } from "./index.ts";

let root: string;
let workspace: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "clawbox-memory-links-"));
  workspace = join(root, "workspace");
  outside = join(root, "outside");
  mkdirSync(join(workspace, "notes"), { recursive: true });
  mkdirSync(join(outside, "deep"), { recursive: true });
  writeFileSync(join(outside, "secret.md"), "# not memory\nthe neighbour's wifi password\n");
  writeFileSync(join(outside, "deep", "more.md"), "# also outside\n");
  writeFileSync(join(workspace, "notes", "plan.md"), "# a workspace note\n");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("memory files are only files inside the workspace", () => {
  it("leaves out MEMORY.md, files and folders under memory/ whose links lead outside", () => {
    mkdirSync(join(workspace, "memory"));
    writeFileSync(join(workspace, "memory", "2026-11-30.md"), "# today\n");
    symlinkSync(join(outside, "secret.md"), join(workspace, "MEMORY.md"));
    symlinkSync(join(outside, "secret.md"), join(workspace, "memory", "linked.md"));
    symlinkSync(join(outside, "deep"), join(workspace, "memory", "deep"));
    // A link that stays inside the workspace is memory like any other file.
    symlinkSync(join(workspace, "notes", "plan.md"), join(workspace, "memory", "plan.md"));

    expect(listMemoryFiles(workspace)).toEqual(["memory/2026-11-30.md", "memory/plan.md"]);
    // The index and memory_get agree: what is not listed cannot be read either.
    expect(() => resolveMemoryPath(workspace, "memory/linked.md")).toThrow(/outside/);
    expect(() => resolveMemoryPath(workspace, "MEMORY.md")).toThrow(/outside/);
  });

  it("indexes nothing when memory/ itself is a link to a folder outside", () => {
    symlinkSync(outside, join(workspace, "memory"));
    expect(listMemoryFiles(workspace)).toEqual([]);
  });

  it("lists a plain MEMORY.md and nested notes", () => {
    writeFileSync(join(workspace, "MEMORY.md"), "# long-term\n");
    mkdirSync(join(workspace, "memory", "trips"), { recursive: true });
    writeFileSync(join(workspace, "memory", "trips", "2026-10-01.md"), "# trip\n");
    expect(listMemoryFiles(workspace)).toEqual(["MEMORY.md", "memory/trips/2026-10-01.md"]);
  });
});
