/**
 * `clawbox console url` needs only the login secret and the server's port: a config
 * invalid elsewhere (the owner wants the console to fix it) still gives a link, from the
 * file's server section; a wrong server section is named precisely.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureLoginSecret } from "../../src/console/index.ts";
import { runCli } from "../support/run-cli.ts";

const home = mkdtempSync(join(tmpdir(), "clawbox-console-url-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("clawbox console url while clawbox.json is invalid", () => {
  it("gives a link on the configured port and says the file is not valid", async () => {
    ensureLoginSecret(home);
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({ server: { port: 18999 }, channels: { qq: { appId: 5 } } }),
    );
    const run = await runCli(["--home", home, "console", "url"]);
    expect(run.stderr).toContain("is not valid");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^http:\/\/127\.0\.0\.1:18999\/\S+/);
  });

  it("names the key when the server section itself is wrong", async () => {
    ensureLoginSecret(home);
    writeFileSync(join(home, "clawbox.json"), JSON.stringify({ server: { port: "eighty" } }));
    const run = await runCli(["--home", home, "console", "url"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("server.port: must be a number, not a string");
    expect(run.stdout).toBe("");
  });
});
