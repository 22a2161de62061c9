/**
 * Issue 38 item 12: a typo is answered with what was probably meant, for commands,
 * subcommands, options and config keys; a mistyped global option is an option, not a
 * command. Nothing starts and nothing is created on a typo (exit 2).
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nearestWord } from "../../src/system/index.ts";
import { runCli } from "../support/run-cli.ts";

const fresh = () => mkdtempSync(join(tmpdir(), "clawbox-typo-"));

describe("did you mean", () => {
  it("a mistyped command names the nearest one", async () => {
    const home = fresh();
    for (const [typed, meant] of [
      ["sesions", "sessions"],
      ["sessoins", "sessions"],
      ["pariing", "pairing"],
      ["cahnnels", "channels"],
    ]) {
      const run = await runCli(["--home", home, typed as string]);
      expect(run.code).toBe(2);
      expect(run.stderr.split("\n")[0]).toBe(
        `clawbox: unknown command "${typed}": did you mean \`${meant}\`?`,
      );
    }
    const far = await runCli(["--home", home, "frobnicate"]);
    expect(far.stderr.split("\n")[0]).toBe('clawbox: unknown command "frobnicate"');
    expect(existsSync(join(home, "clawbox.db"))).toBe(false);
  });

  it("a mistyped global option is called an option, with the nearest one", async () => {
    for (const [typed, meant] of [
      ["--verison", "--version"],
      ["--hepl", "--help"],
      ["--hom", "--home"],
    ]) {
      const run = await runCli([typed as string]);
      expect(run.code).toBe(2);
      expect(run.stderr).not.toContain("unknown command");
      expect(run.stderr).toContain(
        `clawbox: unknown option "${typed}": did you mean \`${meant}\`?`,
      );
    }
    const far = await runCli(["--colour"]);
    expect(far.stderr).toContain(
      'clawbox: unknown option "--colour" (global options: --home, --version, --help)',
    );
  });

  it("a mistyped subcommand or option names the nearest one", async () => {
    const home = fresh();
    const sub = await runCli(["--home", home, "cron", "lsit"]);
    expect(sub.code).toBe(2);
    expect(sub.stderr.split("\n")[0]).toBe(
      'clawbox cron: unknown subcommand "lsit": did you mean `list`? (use list, add or rm)',
    );
    const option = await runCli(["--home", home, "cron", "list", "--jsn"]);
    expect(option.code).toBe(2);
    expect(option.stderr.split("\n")[0]).toBe(
      'clawbox cron: unknown option "--jsn": did you mean `--json`?',
    );
    const global = await runCli(["sessions", "list", "--hoem", home]);
    expect(global.stderr.split("\n")[0]).toBe(
      'clawbox sessions: unknown option "--hoem": did you mean `--home`?',
    );
  });

  it("a mistyped config key names the nearest key at its place", async () => {
    const home = fresh();
    const file = join(home, "clawbox.json");
    writeFileSync(file, JSON.stringify({ server: { prot: 8080 }, agnet: {} }));
    const run = await runCli(["--home", home, "config", "check"], { CLAWBOX_CONFIG: file });
    const said = run.stdout + run.stderr;
    expect(said).toContain(`${file}: server.prot: unknown key, ignored (did you mean \`port\`?)`);
    expect(said).toContain(`${file}: agnet: unknown key, ignored (did you mean \`agent\`?)`);
  });

  it("suggests only what is close for its length", () => {
    expect(nearestWord("prot", ["port", "host"])).toBe("port");
    expect(nearestWord("sessions", ["sessions"])).toBeUndefined();
    expect(nearestWord("xyz", ["port", "host"])).toBeUndefined();
    expect(nearestWord("modles", ["models", "memory"])).toBe("models");
  });
});
