import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";

describe("--home", () => {
  it("is accepted after the command as well as before it", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-home-"));
    const after = await runCli(["config", "path", "--home", home]);
    expect(after.stderr).toBe("");
    expect(after.code).toBe(0);
    expect(after.stdout.trim()).toBe(join(home, "clawbox.json"));
    const equals = await runCli(["config", "path", `--home=${home}`]);
    expect(equals.stdout.trim()).toBe(join(home, "clawbox.json"));
  });
});
