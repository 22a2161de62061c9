/**
 * `clawbox console url` needs only the login secret and the server's port: a config
 * invalid elsewhere (the owner wants the console to fix it) still gives a link, from the
 * file's server section; a wrong server section is named precisely. A link is made only
 * when the service answers on that port (issue 38): with nothing listening, or at a
 * `--port` where nothing listens, it says so and exits 1.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureLoginSecret } from "../../src/console/index.ts";
import { runCli } from "../support/run-cli.ts";

const home = mkdtempSync(join(tmpdir(), "clawbox-console-url-"));
/** Stands in for the running service: its /health, as clawbox answers it. */
const service = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) =>
    new URL(request.url).pathname === "/health"
      ? Response.json({ status: "ok", version: "0.1.0" })
      : new Response("not found", { status: 404 }),
});
/** Something else on a port: a web server that is not clawbox. */
const other = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => new Response("<h1>hi</h1>"),
});
/** A port nothing listens on (taken, then freed). */
const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
const closedPort = closed.port;
closed.stop(true);
afterAll(() => {
  service.stop(true);
  other.stop(true);
  rmSync(home, { recursive: true, force: true });
});

describe("clawbox console url while clawbox.json is invalid", () => {
  it("gives a link on the configured port and says the file is not valid", async () => {
    ensureLoginSecret(home);
    writeFileSync(
      join(home, "clawbox.json"),
      JSON.stringify({ server: { port: service.port }, channels: { qq: { appId: 5 } } }),
    );
    const run = await runCli(["--home", home, "console", "url"]);
    expect(run.stderr).toContain("is not valid");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${service.port}/\\S+`));
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

describe("clawbox console url where no service listens", () => {
  it("says so and exits 1, on the configured port and at a --port", async () => {
    ensureLoginSecret(home);
    writeFileSync(join(home, "clawbox.json"), JSON.stringify({ server: { port: closedPort } }));
    for (const extra of [[], ["--port", String(closedPort)]]) {
      const run = await runCli(["--home", home, "console", "url", ...extra]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(`no service listens on http://127.0.0.1:${closedPort}`);
      expect(run.stderr).toContain("--port");
    }
    // The configured port is served, but --port names another where nothing listens.
    writeFileSync(join(home, "clawbox.json"), JSON.stringify({ server: { port: service.port } }));
    const elsewhere = await runCli([
      "--home",
      home,
      "console",
      "url",
      "--port",
      String(closedPort),
    ]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stdout).toBe("");
    const served = await runCli(["--home", home, "console", "url", "--port", String(service.port)]);
    expect(served.code).toBe(0);
  });

  it("makes no link for a port where something else answers", async () => {
    ensureLoginSecret(home);
    writeFileSync(join(home, "clawbox.json"), JSON.stringify({ server: { port: other.port } }));
    const run = await runCli(["--home", home, "console", "url"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("something that is not clawbox answers");
  });
});
