/**
 * Attack 6 of issue 37, the token itself: the docs' example token
 * (`a-long-random-token-0123456789`) passed `config check` and `doctor`, and a token a
 * person types with few different characters is quick to guess. Both are refused where
 * the config is checked and loaded, naming `server.token`; `clawbox config token` prints
 * one that passes, and the docs show that command instead of a literal token.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";

const home = mkdtempSync(join(tmpdir(), "clawbox-weak-token-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const env = { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" };
const withToken = (token: string) =>
  writeFileSync(join(home, "clawbox.json"), JSON.stringify({ server: { token } }));

const DOCS = join(import.meta.dirname, "..", "..", "docs");

describe("server.token must be hard to guess", () => {
  it("refuses the docs' old example token in config check, run and doctor", async () => {
    withToken("a-long-random-token-0123456789");
    const check = await runCli(["config", "check"], env);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain("server.token: the token is the example token from the docs");
    expect(check.stderr).toContain("clawbox config token");
    const run = await runCli(["run", "--port", "0"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("server.token");
    const doctor = await runCli(["doctor"], env);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^fail\s+config: .*server\.token/m);
  });

  it("refuses low-variety tokens, from the file or CLAWBOX_TOKEN, and never prints them", async () => {
    for (const token of ["aaaaaaaaaaaaaaaaaaaa", "abababababababababab", "0123456789012345"]) {
      withToken(token);
      const check = await runCli(["config", "check"], env);
      expect(check.code, token).toBe(2);
      expect(check.stderr, token).toContain("server.token: the token");
      expect(check.stderr, token).not.toContain(token);
    }
    withToken("kitchen-owner-token-4711-qwerty");
    const fromEnv = await runCli(["config", "check"], { ...env, CLAWBOX_TOKEN: "x".repeat(24) });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain("CLAWBOX_TOKEN");
  });

  it("`clawbox config token` prints a fresh token that passes", async () => {
    const a = await runCli(["config", "token"], env);
    const b = await runCli(["config", "token"], env);
    expect(a.code).toBe(0);
    const token = a.stdout.trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.stdout.trim()).not.toBe(token);
    withToken(token);
    expect((await runCli(["config", "check"], env)).code).toBe(0);
  });

  it("the docs show the command, never a literal token", () => {
    const api = readFileSync(join(DOCS, "HTTP-API.md"), "utf8");
    expect(api).not.toContain("a-long-random-token-0123456789");
    expect(api).toContain("clawbox config token");
  });
});
