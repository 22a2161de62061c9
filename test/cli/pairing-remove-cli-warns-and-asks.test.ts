/**
 * Issue 38 item 10: `clawbox pairing remove cli` took the terminal's owner rights without
 * a word, and the console started speaking as a QQ owner (it spoke as the first owner;
 * `pairing add cli` put `cli` back last). Now removing the id the terminal or the console
 * speaks as warns what it costs and, in a real terminal (a pty), asks first; the console
 * speaks as `cli` while it is an owner, wherever it stands in the list.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";
import { afterAll, describe, expect, it } from "vitest";
import { consoleSpeaker, removalWarning } from "../../src/pairing/index.ts";
import { HAVE_PYTHON_PTY, ptyCli } from "../support/pty-cli.ts";
import { runCli } from "../support/run-cli.ts";

const QQ = "qq:7F3A9C27D4E1B8A65C2F7E90D1B3A4C8";
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function box(owners: string[]) {
  const home = mkdtempSync(join(tmpdir(), "clawbox-pairing-remove-"));
  homes.push(home);
  const configFile = join(home, "clawbox.json");
  writeFileSync(
    configFile,
    `// the box\n{\n  agent: { owners: ${JSON.stringify(owners)} },\n  memory: { enabled: false },\n}\n`,
  );
  const owned = () => JSON5.parse(readFileSync(configFile, "utf8")).agent.owners as string[];
  return { home, configFile, owned, env: { CLAWBOX_HOME: home, CLAWBOX_CONFIG: configFile } };
}

describe("the id the terminal and the console speak as", () => {
  it("the console speaks as cli while it is an owner, even when it was added back last", () => {
    expect(consoleSpeaker([QQ, "cli"])).toBe("cli");
    expect(consoleSpeaker(["cli", QQ])).toBe("cli");
    expect(consoleSpeaker([QQ, "wecom:BOSS"])).toBe(QQ);
    expect(consoleSpeaker([])).toBe("web:owner");
    expect(removalWarning(["cli", QQ], QQ)).toBeUndefined();
    expect(removalWarning([QQ, "wecom:BOSS"], QQ)).toContain("the web console");
  });

  it("without a terminal: removing cli warns what it costs, then removes it", async () => {
    const b = box(["cli", QQ]);
    const run = await runCli(["pairing", "remove", "cli"], b.env);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "warning: cli is the owner this terminal (clawbox chat, cron, context) and the web console speak as",
    );
    expect(run.stderr).toContain(`the console would then speak as ${QQ}`);
    expect(run.stderr).toContain("clawbox pairing add cli gives them back");
    expect(b.owned()).toEqual([QQ]);
    // Removing someone else says nothing of the kind.
    const other = box(["cli", QQ]);
    const quiet = await runCli(["pairing", "remove", QQ], other.env);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
  });

  it.skipIf(!HAVE_PYTHON_PTY)(
    "in a terminal: asks first; no keeps cli, yes removes it",
    async () => {
      const b = box([QQ, "cli"]);
      const no = ptyCli(["pairing", "remove", "cli"], b.env);
      await no.waitFor("remove cli? [y/N]");
      no.type("n\r");
      expect(await no.exited).toBe(1);
      expect(no.output()).toContain("warning: cli is the owner this terminal");
      expect(no.output()).toContain("not removed; owners unchanged");
      expect(b.owned()).toEqual([QQ, "cli"]);
      const yes = ptyCli(["pairing", "remove", "cli"], b.env);
      await yes.waitFor("remove cli? [y/N]");
      yes.type("y\r");
      expect(await yes.exited).toBe(0);
      expect(yes.output()).toContain("removed cli");
      expect(b.owned()).toEqual([QQ]);
    },
    60_000,
  );

  it.skipIf(!HAVE_PYTHON_PTY)(
    "in a terminal, --yes does not ask",
    async () => {
      const b = box(["cli", QQ]);
      const run = ptyCli(["pairing", "remove", "cli", "--yes"], b.env);
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain("warning: cli is the owner");
      expect(run.output()).not.toContain("[y/N]");
      expect(b.owned()).toEqual([QQ]);
    },
    60_000,
  );
});
