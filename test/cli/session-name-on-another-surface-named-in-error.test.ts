/**
 * The README's `curl … "session":"kitchen"` makes the web's kitchen session; on the
 * command line `kitchen` means the CLI's (so `chat` and `export` agree). When the CLI's
 * does not exist, the error names the key it tried and the full key that does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";
import { runCli } from "../support/run-cli.ts";

const home = mkdtempSync(join(tmpdir(), "clawbox-name-elsewhere-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("a session name that exists only on another surface", () => {
  it("sessions export kitchen names the key it tried and suggests the web's full key", async () => {
    const first = await runCli(["--home", home, "sessions", "list"]);
    expect(first.code).toBe(0);
    const store = Store.open({ path: join(home, "clawbox.db") });
    try {
      store.sessions.getOrCreate({ sessionKey: "agent:main:web:direct:kitchen" });
    } finally {
      store.close();
    }
    const run = await runCli(["--home", home, "sessions", "export", "kitchen"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("tried the key agent:main:cli:direct:kitchen");
    expect(run.stderr).toContain("give the full key: agent:main:web:direct:kitchen");
    const full = await runCli([
      "--home",
      home,
      "sessions",
      "export",
      "agent:main:web:direct:kitchen",
    ]);
    expect(full.code).toBe(0);
  });
});
