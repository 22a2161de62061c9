import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";

describe("clawbox config check", () => {
  it("exits 0 on a fresh home with the embedded defaults", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-cfg-"));
    const run = await runCli(["--home", home, "config", "check"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("valid");
  });

  it("exits 2 naming both the wrongly typed key and the unknown key", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-cfg-"));
    const file = join(home, "clawbox.json");
    writeFileSync(file, '{\n  server: { port: "http" },\n  agent: { maxConcurent: 2 },\n}\n');
    const run = await runCli(["--home", home, "config", "check"]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toContain(`${file}: server.port: must be a number, not a string`);
    expect(lines).toContain(
      `${file}: agent.maxConcurent: unknown key, ignored (did you mean \`maxConcurrent\`?)`,
    );
  });

  it("lists every error at once: mistyped keys and the rules across keys", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-cfg-"));
    const file = join(home, "clawbox.json");
    writeFileSync(
      file,
      '{ server: { host: "0.0.0.0", port: "http" }, models: { primary: "qwen" }, agent: { maxConcurrent: "x" } }',
    );
    const run = await runCli(["--home", home, "config", "check"]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toEqual([
      `${file}: server.port: must be a number, not a string`,
      `${file}: agent.maxConcurrent: must be a number, not a string`,
      `${file}: models.primary: "qwen" is not in models.providers (use one of "local", or add a provider with that id)`,
      `${file}: server.token: required when server.host is 0.0.0.0 (set a token (clawbox config token prints a random one), or bind to 127.0.0.1)`,
    ]);
  });

  it("exits 2 with the position of a syntax error", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-cfg-"));
    writeFileSync(join(home, "clawbox.json"), "{ server: ");
    const run = await runCli(["--home", home, "config", "check"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/clawbox\.json: not valid JSON5: invalid end of input at 1:\d+/);
  });

  it("takes CLAWBOX_HOME when --home is absent", async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-cfg-"));
    const run = await runCli(["config", "path"], { CLAWBOX_HOME: home });
    expect(run.stdout.trim()).toBe(join(home, "clawbox.json"));
  });
});
