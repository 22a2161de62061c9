/**
 * docs/SECURITY.md, "The local HTTP API": beyond loopback the token is required. A
 * config that listens on every interface without `server.token` is refused at load, and
 * so is `clawbox run --host 0.0.0.0` on a config without one; nothing starts listening.
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
const newHome = () => {
  const home = mkdtempSync(join(tmpdir(), "clawbox-lan-"));
  homes.push(home);
  return home;
};

describe("listening beyond loopback needs server.token", () => {
  it("refuses --host 0.0.0.0 without a token, and a config that asks for it", async () => {
    const home = newHome();
    const flag = await spawnCli(["run", "--host", "0.0.0.0", "--port", "0"], {
      CLAWBOX_HOME: home,
      CLAWBOX_CONFIG: "",
    });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("server.token is required when listening beyond loopback");
    expect(flag.stdout).not.toContain("listening on");
    writeFileSync(join(home, "clawbox.json"), JSON.stringify({ server: { host: "::" } }));
    const config = await spawnCli(["run", "--port", "0"], {
      CLAWBOX_HOME: home,
      CLAWBOX_CONFIG: "",
    });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain("server.token");
    expect(config.stdout).not.toContain("listening on");
  }, 60_000);
});
