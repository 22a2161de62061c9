import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { seedWorkspace } from "../workspace/index.ts";
import { checkWorkspace } from "./check-workspace.ts";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("doctor's workspace line", () => {
  it("counts the bootstrap files that are there: 7 seeded, 6 once the ritual is done", () => {
    dir = mkdtempSync(join(tmpdir(), "clawbox-doctor-ws-"));
    const workspace = join(dir, "workspace");
    const seeded = seedWorkspace(workspace);
    const files = seeded.created.filter((f) => f.endsWith(".md"));
    expect(files).toHaveLength(7);
    expect(checkWorkspace(workspace)[0]?.message).toBe(`${workspace} (7 bootstrap files)`);
    rmSync(join(workspace, "BOOTSTRAP.md"));
    writeFileSync(join(workspace, "MEMORY.md"), "# Memory\n");
    expect(checkWorkspace(workspace)[0]?.message).toBe(`${workspace} (7 bootstrap files)`);
    rmSync(join(workspace, "MEMORY.md"));
    expect(checkWorkspace(workspace)[0]?.message).toBe(`${workspace} (6 bootstrap files)`);
  });
});
