import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";

function home(config: unknown): { home: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-cfgx-"));
  const file = join(dir, "clawbox.json");
  writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config));
  return { home: dir, file };
}

describe("config keys named after built-in object properties", () => {
  it("are unknown keys, ignored — at the top and nested", async () => {
    const { home: dir, file } = home(
      "{ toString: 1, constructor: { a: 1 }, valueOf: 2, __proto__: { x: 1 }, server: { hasOwnProperty: 1 }, agent: { tools: { toString: 3 } } }",
    );
    const run = await runCli(["--home", dir, "config", "check"]);
    expect(run.stderr).not.toContain("unexpected error");
    expect(run.code).toBe(0);
    for (const path of [
      "toString",
      "constructor",
      "valueOf",
      "__proto__",
      "server.hasOwnProperty",
      "agent.tools.toString",
    ]) {
      expect(run.stderr).toContain(`${file}: ${path}: unknown key, ignored`);
    }
  });
});

describe("config check refuses what would fail at run time", () => {
  it("a LAN address without a token", async () => {
    const { home: dir, file } = home({ server: { host: "0.0.0.0" } });
    const run = await runCli(["--home", dir, "config", "check"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: server.token: required when server.host is 0.0.0.0`);
  });

  it("a primary or fallback model id that names no provider", async () => {
    const { home: dir, file } = home({ models: { primary: "cloud", fallbacks: ["local", "gpt"] } });
    const run = await runCli(["--home", dir, "config", "check"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: models.primary: "cloud" is not in models.providers`);
    expect(run.stderr).toContain(`${file}: models.fallbacks.1: "gpt" is not in models.providers`);
    expect(run.stderr).not.toContain("models.fallbacks.0");
  });

  it("an invalid dreaming cron expression", async () => {
    const { home: dir, file } = home({
      memory: { dreaming: { enabled: true, cron: "every day" } },
    });
    const run = await runCli(["--home", dir, "config", "check"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${file}: memory.dreaming.cron: invalid cron expression "every day"`,
    );
  });

  it("blames an environment variable, not the file, for the value it set", async () => {
    const { home: dir } = home({});
    const port = await runCli(["--home", dir, "config", "check"], { CLAWBOX_PORT: "http" });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("environment CLAWBOX_PORT=http: server.port:");
    expect(port.stderr).not.toContain("clawbox.json");
    const host = await runCli(["--home", dir, "config", "check"], { CLAWBOX_HOST: "0.0.0.0" });
    expect(host.code).toBe(2);
    expect(host.stderr).toContain("environment CLAWBOX_HOST=0.0.0.0: server.token: required");
  });

  it("a CLAWBOX_CONFIG path that does not exist", async () => {
    const { home: dir } = home({});
    const missing = join(dir, "nope", "clawbox.json");
    const run = await runCli(["--home", dir, "config", "check"], { CLAWBOX_CONFIG: missing });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${missing}: no such config file`);
    expect(run.stdout).not.toContain("valid");
  });
});
