/**
 * A first-time user removed `cli` from `agent.owners` (the console's Remove did it in one
 * tap). From then on `clawbox chat` at the box's terminal is a stranger: its turn in the
 * owner's CLI session is refused. The refusal says what to do, and `clawbox pairing add
 * cli` (owner-only by nature: it needs the config file and the database) makes the
 * terminal an owner again, after which the same turn goes through. The CLI runs
 * in-process against a real SQLite file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";

let home: string;
let configFile: string;
let env: Record<string, string>;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "clawbox-pairing-add-"));
  configFile = join(home, "clawbox.json");
  writeFileSync(
    configFile,
    `// the box\n{\n  agent: { owners: ["qq:OPENID_A"] }, // cli was removed\n  memory: { enabled: false },\n}\n`,
  );
  env = { CLAWBOX_HOME: home, CLAWBOX_CONFIG: configFile };
});

afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("clawbox pairing add", () => {
  it("a refused CLI turn says how the terminal becomes an owner again", async () => {
    const refused = await runCli(["chat", "-m", "/status"], env);
    expect(refused.code).not.toBe(0);
    const said = refused.stdout + refused.stderr;
    expect(said).toContain("cannot be added to it");
    expect(said).toContain("clawbox pairing add cli");
  });

  it("adds cli back (comments kept) and the same turn goes through", async () => {
    const added = await runCli(["pairing", "add", "cli"], env);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("cli is an owner");
    const text = readFileSync(configFile, "utf8");
    expect(text).toContain("// cli was removed");
    expect(JSON5.parse(text).agent.owners).toEqual(["qq:OPENID_A", "cli"]);
    const ok = await runCli(["chat", "-m", "/status"], env);
    expect(ok.stderr).not.toContain("cannot be added to it");
    expect(ok.code).toBe(0);
  });

  it("refuses what is not an owner id, and changes nothing", async () => {
    const before = readFileSync(configFile, "utf8");
    const bad = await runCli(["pairing", "add", "not an id"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not an owner id");
    expect(readFileSync(configFile, "utf8")).toBe(before);
  });
});
