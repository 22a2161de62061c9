/**
 * docs/BACKUP.md, "What a backup holds": a workspace configured outside the home is in
 * the backup and restored to the same place; when that place holds data, the restore is
 * refused (nothing changed, no staging folder left) unless --force.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnCli } from "../support/spawn-cli.ts";

describe("a workspace outside the home", () => {
  it("is backed up and restored to its place, refused there when it holds data", async () => {
    const root = mkdtempSync(join(tmpdir(), "clawbox-backup-outside-ws-"));
    const home = join(root, "home");
    const workspace = join(root, "srv-workspace");
    mkdirSync(home);
    mkdirSync(workspace);
    writeFileSync(join(home, "clawbox.json"), JSON.stringify({ workspace }));
    writeFileSync(join(workspace, "MEMORY.md"), "# 记忆\n绣球花\n");
    writeFileSync(join(root, "passphrase"), "correct horse battery\n");
    const pass = ["--passphrase-file", join(root, "passphrase")];
    const env = (h: string) => ({ CLAWBOX_HOME: h, CLAWBOX_CONFIG: "" });
    const file = join(root, "b.age");
    expect((await spawnCli(["backup", "create", "-o", file, ...pass], env(home))).code).toBe(0);

    // Box B: a fresh home, and the workspace's place holds another workspace.
    renameSync(workspace, join(root, "original-workspace"));
    mkdirSync(workspace);
    writeFileSync(join(workspace, "MEMORY.md"), "another box\n");
    const listing = readdirSync(root).sort();
    const refused = await spawnCli(["backup", "restore", file, ...pass], env(join(root, "b")));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `the workspace ${workspace} already holds data; nothing was changed`,
    );
    expect(readdirSync(root).sort()).toEqual([...listing, "b"].sort());
    expect(readdirSync(join(root, "b"))).toEqual([]);

    const forced = await spawnCli(
      ["backup", "restore", file, ...pass, "--force"],
      env(join(root, "b")),
    );
    expect(forced.stderr).toBe("");
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(`workspace restored to ${workspace}`);
    expect(readFileSync(join(workspace, "MEMORY.md"), "utf8")).toBe("# 记忆\n绣球花\n");
    const aside = readdirSync(root).filter((n) => n.startsWith("srv-workspace.before-restore-"));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(root, aside[0] as string, "MEMORY.md"), "utf8")).toBe("another box\n");
    expect(JSON.parse(readFileSync(join(root, "b", "clawbox.json"), "utf8"))).toEqual({
      workspace,
    });
  }, 180_000);
});
