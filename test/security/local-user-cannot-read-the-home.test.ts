/**
 * The box's data against another local user (uid 65534 through setpriv) on a development
 * install, where no systemd unit sets a umask or a state folder mode: a home that
 * `clawbox` creates is 0700, so its database (transcripts, pairing codes) and workspace
 * (MEMORY.md, USER.md) cannot be read; a config file the owner left world-readable stops
 * being readable by others the moment the box writes a secret into it; `clawbox doctor`
 * warns about a home others can enter.
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editConfigFile } from "../../src/config/index.ts";
import { Store } from "../../src/store/index.ts";
import { CAN_DROP_TO_LOCAL_USER, runAsLocalUser } from "../support/local-user.ts";
import { spawnCli } from "../support/spawn-cli.ts";

describe.skipIf(!CAN_DROP_TO_LOCAL_USER)("a local user and the box's home (dev install)", () => {
  let parent: string;

  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), "clawbox-home-perm-"));
    // The parent is open, as a user's own folder usually is: the home's mode must protect.
    chmodSync(parent, 0o755);
  });
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it("cannot read the database or the workspace of a home clawbox created", async () => {
    const home = join(parent, "box");
    const run = await spawnCli(["sessions", "list", "--home", home], { CLAWBOX_CONFIG: "" });
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    writeFileSync(join(home, "workspace-probe"), "private");
    const read = await runAsLocalUser(["cat", join(home, "workspace-probe")]);
    expect(read.status).not.toBe(0);
    const list = await runAsLocalUser(["ls", home]);
    expect(list.status).not.toBe(0);
  }, 90_000);

  it("cannot read a workspace clawbox created outside the home, nor a transcript it exported", async () => {
    const home = join(parent, "box2");
    const workspace = join(parent, "ws2");
    const exported = join(parent, "owner.jsonl");
    const env = { CLAWBOX_CONFIG: "", CLAWBOX_WORKSPACE: workspace };
    const run = await spawnCli(["context", "list", "--home", home], env);
    expect(run.code, run.stderr).toBe(0);
    const read = await runAsLocalUser(["cat", join(workspace, "USER.md")]);
    expect(read.status).not.toBe(0);
    const store = Store.open({ path: join(home, "clawbox.db") });
    try {
      store.sessions.getOrCreate({ sessionKey: "agent:main:cli:direct:owner" });
    } finally {
      store.close();
    }
    const exportRun = await spawnCli(
      ["sessions", "export", "agent:main:cli:direct:owner", "-o", exported, "--home", home],
      env,
    );
    expect(exportRun.code, exportRun.stderr).toBe(0);
    expect(statSync(exported).mode & 0o777).toBe(0o600);
    expect((await runAsLocalUser(["cat", exported])).status).not.toBe(0);
  }, 90_000);

  it("cannot read a secret the box writes into a config that was world-readable", async () => {
    const config = join(parent, "clawbox.json");
    writeFileSync(config, "{\n  // mine\n}\n");
    chmodSync(config, 0o644);
    await editConfigFile(config, [
      { path: ["channels", "qq", "clientSecret"], value: "qq-secret-0123456789" },
    ]);
    expect(statSync(config).mode & 0o777).toBe(0o640);
    const read = await runAsLocalUser(["cat", config]);
    expect(read.status).not.toBe(0);
    expect(read.stdout).not.toContain("qq-secret");
  });

  it("doctor warns about a home other users can enter", async () => {
    const home = join(parent, "open");
    const first = await spawnCli(["sessions", "list", "--home", home], { CLAWBOX_CONFIG: "" });
    expect(first.code, first.stderr).toBe(0);
    chmodSync(home, 0o755);
    const doctor = await spawnCli(["doctor", "--home", home], { CLAWBOX_CONFIG: "" });
    expect(doctor.stdout).toContain(`chmod o-rwx ${home}`);
  }, 90_000);
});
