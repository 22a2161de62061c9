/**
 * firmware-config/install.sh on first boot waits while another dpkg run holds the lock
 * (apt's daily jobs start at boot too) instead of giving up, and still fails at once on
 * any other dpkg error. dpkg, systemctl and clawbox are recorders on PATH.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "./fake-card.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs install.sh from a fake boot folder; dpkg fails with `errors` in turn, then succeeds. */
function runInstall(errors: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-install-"));
  dirs.push(dir);
  const here = join(dir, "clawbox");
  const bin = join(dir, "bin");
  mkdirSync(here);
  mkdirSync(bin);
  writeFileSync(
    join(here, "install.sh"),
    readFileSync(join(ROOT, "firmware-config", "install.sh")),
  );
  writeFileSync(join(here, "clawbox_9.9.9_arm64.deb"), "deb");
  writeFileSync(join(dir, "errors"), errors.map((e) => `${e}\n`).join(""));
  const stub = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  stub(
    "dpkg",
    `echo "dpkg $*" >>"${dir}/calls"
line=$(head -n 1 "${dir}/errors"); tail -n +2 "${dir}/errors" >"${dir}/errors.next"; mv "${dir}/errors.next" "${dir}/errors"
[ -z "$line" ] && exit 0
echo "$line" >&2; exit 2`,
  );
  stub("systemctl", `echo "systemctl $*" >>"${dir}/calls"`);
  stub("clawbox", 'echo "clawbox 9.9.9"');
  const run = spawnSync("sh", [join(here, "install.sh")], {
    encoding: "utf8",
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      CLAWBOX_FIRSTBOOT_LOG: join(dir, "install.log"),
      CLAWBOX_DPKG_RETRY_SECONDS: "0",
    },
  });
  const calls = readFileSync(join(dir, "calls"), "utf8").trim().split("\n");
  return { status: run.status, calls, log: readFileSync(join(dir, "install.log"), "utf8") };
}

describe("install.sh and the dpkg lock", () => {
  it("retries while dpkg is locked, then installs and starts the service", () => {
    const lock = "dpkg: error: dpkg frontend lock was locked by another process with pid 812";
    const run = runInstall([lock, lock]);
    expect(run.status).toBe(0);
    expect(run.calls.filter((c) => c.startsWith("dpkg -i"))).toHaveLength(3);
    expect(run.calls).toContain("systemctl enable clawbox.service");
    expect(run.log).toContain("dpkg is busy");
  });

  it("fails at once on another dpkg error", () => {
    const run = runInstall(["dpkg: dependency problems prevent configuration of clawbox"]);
    expect(run.status).toBe(1);
    expect(run.calls.filter((c) => c.startsWith("dpkg -i"))).toHaveLength(1);
    expect(run.calls).not.toContain("systemctl enable clawbox.service");
  });
});
