import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnCli } from "../support/spawn-cli.ts";
import { HAVE_STORIES, STORIES_MODEL } from "../support/stories-model.ts";

describe.skipIf(!HAVE_STORIES)("clawbox chat on stories260K", () => {
  it("streams a continuation, continues the session on a second call, and lists 4 messages", {
    timeout: 600_000,
  }, async () => {
    const home = mkdtempSync(join(tmpdir(), "clawbox-e2e-"));
    // One llama.cpp thread: the CI machine has two shared cores.
    const env = { CLAWBOX_HOME: home, CLAWBOX_THREADS: "1" };
    const first = await spawnCli(
      ["chat", "--model", STORIES_MODEL, "-m", "Once upon a time"],
      env,
      240_000,
    );
    expect(first.stderr).not.toContain("clawbox chat:");
    expect(first.code).toBe(0);
    expect(first.stdout.trim().length).toBeGreaterThan(10);
    const key = /session: (\S+)/.exec(first.stderr)?.[1];
    expect(key).toBeDefined();

    const second = await spawnCli(
      ["chat", "--model", STORIES_MODEL, "--session", key ?? "", "-m", "The little dog"],
      env,
      240_000,
    );
    expect(second.code).toBe(0);
    expect(second.stdout.trim().length).toBeGreaterThan(10);

    const listed = await spawnCli(["sessions", "list", "--json"], env);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { sessionKey: string; messageCount: number }[];
    expect(rows).toEqual([expect.objectContaining({ sessionKey: key, messageCount: 4 })]);
  });
});
