/**
 * File tools on a real disk: a dangling symlink cannot create a file outside, writes
 * are atomic and leave no temp files, apply_patch is all-or-nothing (also when a write
 * fails halfway), `read` refuses FIFOs and streams big files, and the read-only roots
 * (skills, user guide) can be read but not written.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/index.ts";
import { Store } from "../../src/store/index.ts";
import { type AgentTool, createBaseTools, type ToolContext } from "../../src/tools/index.ts";

let dir: string;
let workspace: string;
let outside: string;
let skills: string;
let store: Store;
let tools: Map<string, AgentTool>;

const ctx = (over: Partial<ToolContext> = {}): ToolContext => ({
  sessionId: "s",
  sessionKey: "k",
  isOwner: true,
  workspace,
  readRoots: [skills],
  signal: new AbortController().signal,
  ...over,
});
const run = async (name: string, args: Record<string, unknown>, over?: Partial<ToolContext>) => {
  const found = tools.get(name);
  if (!found) throw new Error(`no tool ${name}`);
  const out = await found.execute(args, ctx(over));
  return {
    isError: out.isError === true,
    text: out.content.map((c) => ("text" in c ? c.text : "")).join(""),
  };
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clawbox-disk-"));
  workspace = join(dir, "workspace");
  outside = join(dir, "outside");
  skills = join(dir, "bundled-skills");
  mkdirSync(workspace);
  mkdirSync(outside);
  mkdirSync(join(skills, "weather"), { recursive: true });
  writeFileSync(join(skills, "weather", "SKILL.md"), "# Weather skill\n");
  mkdirSync(join(dir, "other"));
  writeFileSync(join(dir, "other", "SKILL.md"), "not a root\n");
  store = Store.open({ path: join(dir, "db.sqlite") });
  tools = new Map(
    createBaseTools({ store, tools: configSchema.parse({}).tools }).map((t) => [t.name, t]),
  );
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("symlinks", () => {
  it("a dangling link cannot create a file outside the workspace", async () => {
    symlinkSync(join(outside, "x.md"), join(workspace, "notes.md"));
    symlinkSync("notes.md", join(workspace, "chain.md"));
    for (const path of ["notes.md", "chain.md"]) {
      const write = await run("write", { path, content: "escaped" });
      expect(write.isError).toBe(true);
      expect(write.text).toContain("through a symbolic link");
    }
    const patch = await run("apply_patch", {
      patch: "*** Begin Patch\n*** Add File: notes.md\n+escaped\n*** End Patch",
    });
    expect(patch.isError).toBe(true);
    expect(existsSync(join(outside, "x.md"))).toBe(false);
  });

  it("writing through a link inside the workspace changes the target and keeps the link", async () => {
    writeFileSync(join(workspace, "real.md"), "old");
    symlinkSync("real.md", join(workspace, "alias.md"));
    expect((await run("write", { path: "alias.md", content: "new" })).isError).toBe(false);
    expect(readFileSync(join(workspace, "real.md"), "utf8")).toBe("new");
    expect(lstatSync(join(workspace, "alias.md")).isSymbolicLink()).toBe(true);
  });
});

describe("atomic writes", () => {
  it("write and edit replace the file whole and leave no temp file", async () => {
    expect((await run("write", { path: "a/b.md", content: "one two" })).isError).toBe(false);
    expect((await run("edit", { path: "a/b.md", oldText: "two", newText: "three" })).isError).toBe(
      false,
    );
    expect(readFileSync(join(workspace, "a", "b.md"), "utf8")).toBe("one three");
    expect(readdirSync(join(workspace, "a"))).toEqual(["b.md"]);
  });

  it("apply_patch checks every hunk of every file before writing any", async () => {
    writeFileSync(join(workspace, "a.md"), "alpha\n");
    writeFileSync(join(workspace, "b.md"), "beta\n");
    const out = await run("apply_patch", {
      patch:
        "*** Begin Patch\n*** Update File: a.md\n@@\n-alpha\n+ALPHA\n*** Update File: b.md\n@@\n-gamma\n+GAMMA\n*** End Patch",
    });
    expect(out.isError).toBe(true);
    expect(out.text).toContain("b.md: hunk 1 does not match");
    expect(readFileSync(join(workspace, "a.md"), "utf8")).toBe("alpha\n");
  });

  it("apply_patch puts written files back when a later write fails", async () => {
    writeFileSync(join(workspace, "a.md"), "alpha\n");
    writeFileSync(join(workspace, "plain.txt"), "a file, not a folder\n");
    const out = await run("apply_patch", {
      patch:
        "*** Begin Patch\n*** Update File: a.md\n@@\n-alpha\n+ALPHA\n*** Add File: new.md\n+fresh\n*** Add File: plain.txt/inside.md\n+cannot exist\n*** End Patch",
    });
    expect(out.isError).toBe(true);
    expect(out.text).toContain("no file was changed");
    expect(readFileSync(join(workspace, "a.md"), "utf8")).toBe("alpha\n");
    expect(existsSync(join(workspace, "new.md"))).toBe(false);
    expect(readdirSync(workspace).sort()).toEqual(["a.md", "plain.txt"]);
  });

  it("apply_patch refuses a file named twice", async () => {
    writeFileSync(join(workspace, "a.md"), "alpha\nbeta\n");
    const out = await run("apply_patch", {
      patch:
        "*** Begin Patch\n*** Update File: a.md\n@@\n-alpha\n+A\n*** Update File: a.md\n@@\n-beta\n+B\n*** End Patch",
    });
    expect(out.isError).toBe(true);
    expect(out.text).toContain("appears twice");
  });
});

describe("read", () => {
  it("refuses a FIFO instead of blocking the run", async () => {
    execFileSync("mkfifo", [join(workspace, "pipe")]);
    const out = await run("read", { path: "pipe" });
    expect(out.isError).toBe(true);
    expect(out.text).toContain("not a regular file");
  });

  it("stops at the character cap and says where to continue", async () => {
    const line = "x".repeat(99);
    writeFileSync(join(workspace, "big.txt"), `${line}\n`.repeat(20_000));
    const out = await run("read", { path: "big.txt" });
    expect(out.text.length).toBeLessThan(51_000);
    expect(out.text).toMatch(/cut at 50000 characters; continue with offset \d+/);
    const range = await run("read", { path: "big.txt", offset: 19_999, limit: 5 });
    expect(range.text).toBe(`${line}\n${line}\n`);
  });

  it("opens the bundled skills read-only for an owner, and nothing beside them", async () => {
    const skill = await run("read", { path: join(skills, "weather", "SKILL.md") });
    expect(skill).toEqual({ isError: false, text: "# Weather skill\n" });
    const stranger = await run(
      "read",
      { path: join(skills, "weather", "SKILL.md") },
      { isOwner: false },
    );
    expect(stranger.isError).toBe(true);
    expect(stranger.text).not.toContain("Weather skill");
    const other = await run("read", { path: join(dir, "other", "SKILL.md") });
    expect(other.isError).toBe(true);
    const write = await run("write", { path: join(skills, "weather", "SKILL.md"), content: "x" });
    expect(write.isError).toBe(true);
    expect(readFileSync(join(skills, "weather", "SKILL.md"), "utf8")).toBe("# Weather skill\n");
  });
});
