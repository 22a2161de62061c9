/**
 * The CLI's exit-code table (README "Exit codes": 0 ok, 1 failed, 2 usage error or not
 * found) holds for every command, and usage errors say what was wrong once: a missing or
 * unknown subcommand is named as such with the usage printed one time (it was printed
 * twice, with no "unknown subcommand"), a missing thing is "not found" (exit 2 in cron and
 * followups, 1 elsewhere before), and a mistyped --home is refused with nothing created.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";

const fresh = () => mkdtempSync(join(tmpdir(), "clawbox-exit-"));
const count = (text: string, part: string) => text.split(part).length - 1;

describe("usage errors", () => {
  it("a missing or unknown subcommand is named, with the usage once", async () => {
    const home = fresh();
    for (const [args, message] of [
      [["channels"], "clawbox channels: missing subcommand: use status"],
      [["channels", "bogus"], 'clawbox channels: unknown subcommand "bogus": use status'],
      [["cron", "bogus"], 'clawbox cron: unknown subcommand "bogus": use list, add or rm'],
      [["models", "--json"], "clawbox models: missing subcommand: use list, pull or use"],
      [["context", "bogus"], 'clawbox context: unknown subcommand "bogus": use list or detail'],
    ] as const) {
      const run = await runCli(["--home", home, ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr.split("\n")[0]).toBe(message);
      expect(count(run.stderr, "Usage: clawbox")).toBe(1);
      expect(run.stdout).toBe("");
    }
  });

  it("an unknown flag or a bad value is a usage error, checked before anything starts", async () => {
    const home = fresh();
    const flag = await runCli(["--home", home, "sessions", "list", "--bogus"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(
      'clawbox sessions: unknown option "--bogus" (options here: --json)',
    );
    const port = await runCli(["--home", home, "run", "--port", "abc"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("--port: not a port number: abc");
    // Nothing was started: no database, no seeded workspace.
    expect(existsSync(join(home, "clawbox.db"))).toBe(false);
    expect(existsSync(join(home, "workspace"))).toBe(false);
  });
});

describe("not found is exit 2 everywhere", () => {
  it.each([
    [["cron", "rm", "nosuch"], "no reminder with id nosuch"],
    [["followups", "rm", "nosuch"], "no open follow-up with id nosuch"],
    [["followups", "rm", "42"], "no open follow-up with id 42"],
    [["sessions", "export", "nosuch"], "no session with id, key or name nosuch"],
    [["sessions", "delete", "nosuch"], "no session with id, key or name nosuch"],
    [["sessions", "import", "/nonexistent/t.jsonl"], "/nonexistent/t.jsonl: no such file"],
    [["context", "list", "--session", "nosuch"], "no session with id, key or name nosuch"],
    [["compact", "--session", "nosuch"], "no session with id, key or name nosuch"],
    [["models", "pull", "nosuch"], 'no model named "nosuch" in the manifest'],
    [["models", "use", "nosuch"], 'no installed chat model named "nosuch"'],
  ])("%j", async (args, message) => {
    const run = await runCli(["--home", fresh(), ...args]);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain("needs a");
    expect(run.code).toBe(2);
  });

  it("a failure is exit 1 and success 0", async () => {
    const home = fresh();
    const file = join(home, "bad.jsonl");
    writeFileSync(file, '{"type":"session"}\n');
    const bad = await runCli(["--home", home, "sessions", "import", file]);
    expect(bad.code).toBe(1);
    expect((await runCli(["--home", home, "sessions", "list"])).code).toBe(0);
  });
});

describe("--home", () => {
  it("a home whose parent does not exist is refused and nothing is created", async () => {
    const parent = join(fresh(), "nonexistent", "deep");
    const run = await runCli(["--home", join(parent, "dir"), "sessions", "list"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`home ${join(parent, "dir")} does not exist, nor does its parent`);
    expect(run.stdout).not.toContain("no sessions yet");
    expect(existsSync(join(parent, ".."))).toBe(false);
  });

  it("a new home in an existing folder is created, and said so", async () => {
    const home = join(fresh(), "box");
    const run = await runCli(["--home", home, "sessions", "list"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`clawbox: created a new home at ${home}\n`);
    expect(existsSync(home)).toBe(true);
    const again = await runCli(["--home", home, "sessions", "list"]);
    expect(again.stderr).toBe("");
  });
});

describe("--help", () => {
  it("names what each command does, models included, and the exit codes", async () => {
    const run = await runCli(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /models\s+list, pull or switch models: chat GGUFs and embedding models/,
    );
    expect(run.stdout).toContain("Exit codes: 0 ok, 1 failed, 2 usage error or not found");
  });
});
