/**
 * `memory_get` reads memory files only: a memory file that is a symlink to a file
 * outside the workspace is refused and its content never returned, and so is any
 * workspace file that is not memory (USER.md, the workspace state, notes): someone
 * granted the memory tools gets memory, not the rest of the owner's files.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryTools } from "../../src/memory/index.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The memory_get tool over `workspace`, and a call context for an owner or not. */
function memoryGetIn(workspace: string, isOwner: boolean) {
  const [, memoryGet] = createMemoryTools({
    workspace,
    search: async () => ({ mode: "keyword", results: [], embedMs: 0, searchMs: 0 }),
  });
  if (!memoryGet) throw new Error("memory_get missing");
  const ctx = {
    sessionId: "s",
    sessionKey: "k",
    isOwner,
    workspace,
    signal: new AbortController().signal,
  };
  return { memoryGet, ctx };
}

describe("memory_get", () => {
  it("refuses a memory file that links outside the workspace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-memget-"));
    dirs.push(dir);
    const workspace = join(dir, "workspace");
    mkdirSync(join(workspace, "memory"), { recursive: true });
    writeFileSync(join(dir, "secret.txt"), "ssh private key\n");
    writeFileSync(join(workspace, "memory", "2026-01-01.md"), "# Notes\nplumber on monday\n");
    symlinkSync(join(dir, "secret.txt"), join(workspace, "memory", "leak.md"));
    symlinkSync(join(dir, "secret.txt"), join(workspace, "MEMORY.md"));
    const { memoryGet, ctx } = memoryGetIn(workspace, true);
    for (const path of ["memory/leak.md", "MEMORY.md"]) {
      const out = await memoryGet.execute({ path }, ctx);
      const text = out.content.map((c) => ("text" in c ? c.text : "")).join("");
      expect(out.isError, text).toBe(true);
      expect(text).toContain("leads outside the workspace");
      expect(text).not.toContain("ssh private key");
    }
    const ok = await memoryGet.execute({ path: "memory/2026-01-01.md" }, ctx);
    expect(ok.isError).toBeFalsy();
  });

  it("refuses workspace files that are not memory files", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-memget-"));
    dirs.push(dir);
    const workspace = join(dir, "workspace");
    mkdirSync(join(workspace, ".clawbox"), { recursive: true });
    writeFileSync(join(workspace, "USER.md"), "# User\nprivate: bank at 9\n");
    writeFileSync(join(workspace, "notes.md"), "private: bank at 9\n");
    writeFileSync(join(workspace, ".clawbox", "workspace-state.json"), '{"private":"bank at 9"}');
    const { memoryGet, ctx } = memoryGetIn(workspace, false);
    for (const path of ["USER.md", "notes.md", ".clawbox/workspace-state.json"]) {
      const out = await memoryGet.execute({ path }, ctx);
      const text = out.content.map((c) => ("text" in c ? c.text : "")).join("");
      expect(out.isError, text).toBe(true);
      expect(text).toContain("is not a memory file");
      expect(text).not.toContain("bank at 9");
    }
  });
});
