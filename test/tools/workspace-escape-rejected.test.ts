import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/index.ts";
import { Store } from "../../src/store/index.ts";
import { type AgentTool, createBaseTools, type ToolContext } from "../../src/tools/index.ts";

let dir: string;
let workspace: string;
let outside: string;
let store: Store;
let tools: Map<string, AgentTool>;

const ctx = (over: Partial<ToolContext> = {}): ToolContext => ({
  sessionId: "s",
  sessionKey: "k",
  isOwner: true,
  workspace,
  signal: new AbortController().signal,
  ...over,
});
const tool = (name: string) => {
  const found = tools.get(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};
const text = (out: { content: { type: string; text?: string }[] }) =>
  out.content.map((c) => c.text ?? "").join("");

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clawbox-ws-"));
  workspace = join(dir, "workspace");
  outside = join(dir, "outside");
  mkdirSync(workspace);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "top secret");
  symlinkSync(outside, join(workspace, "link"));
  symlinkSync(join(outside, "secret.txt"), join(workspace, "secret-link.txt"));
  store = Store.open({ path: join(dir, "db.sqlite") });
  tools = new Map(
    createBaseTools({ store, tools: configSchema.parse({}).tools }).map((t) => [t.name, t]),
  );
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("file tools stay inside the workspace", () => {
  const attempts: [string, string][] = [
    ["../outside/secret.txt", 'uses ".."'],
    ["notes/../../outside/secret.txt", 'uses ".."'],
    ["/etc/passwd", "is outside the workspace"],
    ["link/secret.txt", "through a symbolic link"],
    ["secret-link.txt", "through a symbolic link"],
  ];
  for (const [path, why] of attempts) {
    it(`read refuses ${path}`, async () => {
      const out = await tool("read").execute({ path }, ctx());
      expect(out.isError).toBe(true);
      expect(text(out)).toContain("WORKSPACE_ESCAPE");
      expect(text(out)).toContain(why);
      expect(text(out)).not.toContain("top secret");
    });
  }

  it("write, edit and apply_patch refuse escapes and leave outside files untouched", async () => {
    const write = await tool("write").execute({ path: "link/new.txt", content: "x" }, ctx());
    const edit = await tool("edit").execute(
      { path: "../outside/secret.txt", oldText: "top", newText: "no" },
      ctx(),
    );
    const patch = await tool("apply_patch").execute(
      {
        patch: `*** Begin Patch\n*** Update File: ${join(outside, "secret.txt")}\n@@\n-top secret\n+owned\n*** End Patch`,
      },
      ctx(),
    );
    for (const out of [write, edit, patch]) {
      expect(out.isError).toBe(true);
      expect(text(out)).toContain("WORKSPACE_ESCAPE");
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("absolute paths inside the workspace work, and the tools do their job", async () => {
    expect(
      (
        await tool("write").execute(
          { path: join(workspace, "a/b.txt"), content: "one\ntwo\n" },
          ctx(),
        )
      ).isError,
    ).toBeFalsy();
    expect(
      (await tool("edit").execute({ path: "a/b.txt", oldText: "two", newText: "three" }, ctx()))
        .isError,
    ).toBeFalsy();
    const patch = await tool("apply_patch").execute(
      {
        patch:
          "*** Begin Patch\n*** Update File: a/b.txt\n@@\n one\n-three\n+four\n*** Add File: c.txt\n+hello\n*** End Patch",
      },
      ctx(),
    );
    expect(patch.isError).toBeFalsy();
    expect(readFileSync(join(workspace, "a/b.txt"), "utf8")).toBe("one\nfour\n");
    expect(text(await tool("read").execute({ path: "c.txt" }, ctx()))).toBe("hello");
  });

  it("a patch with one bad hunk changes nothing", async () => {
    writeFileSync(join(workspace, "x.txt"), "alpha\n");
    const out = await tool("apply_patch").execute(
      {
        patch:
          "*** Begin Patch\n*** Add File: y.txt\n+new\n*** Update File: x.txt\n@@\n-beta\n+gamma\n*** End Patch",
      },
      ctx(),
    );
    expect(out.isError).toBe(true);
    expect(text(out)).toContain("hunk 1 does not match");
    expect(() => readFileSync(join(workspace, "y.txt"))).toThrow();
  });
});
