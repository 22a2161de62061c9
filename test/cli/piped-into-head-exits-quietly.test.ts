import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const home = mkdtempSync(join(tmpdir(), "clawbox-epipe-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs `clawbox ARGS | true`: the reader is gone before clawbox writes a byte. */
function pipedIntoClosedReader(args: string) {
  const run = spawnSync(
    "bash",
    ["-c", `"${CLAWBOX_BIN}" --home "${home}" ${args} | true; echo "\${PIPESTATUS[0]}"`],
    { encoding: "utf8", env: { ...process.env, CLAWBOX_HOME: home }, timeout: 60_000 },
  );
  return { stderr: run.stderr, code: run.stdout.trim() };
}

describe("clawbox piped into a reader that stops (head)", () => {
  it.each(["channels status", "config show"])(
    "%s exits quietly with code 0, no EPIPE stack",
    (args) => {
      const { stderr, code } = pipedIntoClosedReader(args);
      expect(stderr).not.toMatch(/EPIPE|broken pipe|src\/|at /);
      expect(code).toBe("0");
    },
  );
});
