/**
 * `clawbox run` never listens beyond loopback without `server.token` (docs/SECURITY.md):
 * neither when `--host` asks for it nor when the config does. It exits with an error that
 * names the fix, and never prints a listening line.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnCli } from "../support/spawn-cli.ts";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function home(config?: object): string {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-host-"));
  homes.push(dir);
  if (config) writeFileSync(join(dir, "clawbox.json"), JSON.stringify(config));
  return dir;
}

describe("clawbox run beyond loopback", () => {
  it("refuses --host 0.0.0.0 without server.token", async () => {
    const run = await spawnCli(
      ["run", "--host", "0.0.0.0", "--port", "0"],
      {
        CLAWBOX_HOME: home(),
        CLAWBOX_CONFIG: "",
      },
      30_000,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("server.token is required when listening beyond loopback");
    expect(run.stdout + run.stderr).not.toContain("listening on");
  });

  it("refuses server.host 0.0.0.0 in the config without server.token", async () => {
    const run = await spawnCli(
      ["run", "--port", "0"],
      {
        CLAWBOX_HOME: home({ server: { host: "0.0.0.0" } }),
        CLAWBOX_CONFIG: "",
      },
      30_000,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/server\.token/);
    expect(run.stdout + run.stderr).not.toContain("listening on");
  });
});
