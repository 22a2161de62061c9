import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";

const home = mkdtempSync(join(tmpdir(), "clawbox-pairing-remove-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("clawbox pairing remove with a bare id", () => {
  it("suggests the owner's full id (qq:OPENID) and changes nothing", async () => {
    const file = join(home, "clawbox.json");
    writeFileSync(file, JSON.stringify({ agent: { owners: ["qq:OPENIDALICE0001", "wecom:bob"] } }));
    const before = readFileSync(file, "utf8");
    const run = await runCli(["--home", home, "pairing", "remove", "OPENIDALICE0001"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("OPENIDALICE0001 is not in agent.owners");
    expect(run.stderr).toContain("did you mean clawbox pairing remove qq:OPENIDALICE0001?");
    expect(readFileSync(file, "utf8")).toBe(before);
    const other = await runCli(["--home", home, "pairing", "remove", "nobody"]);
    expect(other.stderr).toContain("see clawbox pairing list");
  });
});
