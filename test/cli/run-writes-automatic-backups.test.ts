/**
 * docs/BACKUP.md, "Automatic backups": `clawbox run` with `backup.dir` writes a backup
 * there after READY while it keeps answering; with the folder missing (an unmounted USB
 * stick) it logs one warning, turns still work, and `clawbox doctor` warns with the fix.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiText, startFakeOpenAI } from "../fakes/openai-server.ts";
import { cloudOnlyConfig } from "../support/openai-provider-fixture.ts";
import { startService } from "../support/run-service.ts";
import { CLAWBOX_BIN, spawnCli } from "../support/spawn-cli.ts";

async function serveWithBackups(usb: string) {
  const model = await startFakeOpenAI(() => openaiText("好的"));
  const root = mkdtempSync(join(tmpdir(), "clawbox-auto-backups-"));
  const home = join(root, "home");
  mkdirSync(home);
  writeFileSync(join(root, "passphrase"), "correct horse battery\n");
  const backup = { dir: join(root, usb), passphraseFile: join(root, "passphrase"), keep: 3 };
  writeFileSync(join(home, "clawbox.json"), JSON.stringify(cloudOnlyConfig(model.url, { backup })));
  const env = { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" };
  const service = await startService(["--port", "0"], env);
  const ask = async () => {
    const res = await fetch(`${service.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "现在几点？", session: "kitchen" }),
    });
    return ((await res.json()) as { reply?: string }).reply;
  };
  const stop = async () => {
    service.child.kill("SIGTERM");
    await service.exited;
    await model.close();
  };
  const doctor = async () => {
    const run = await spawnCli(["doctor", "--json"], env);
    const report = JSON.parse(run.stdout) as {
      checks: { name: string; status: string; message: string }[];
    };
    return report.checks.find((c) => c.name === "backups");
  };
  return { root, dir: backup.dir, service, ask, stop, doctor };
}

describe("clawbox run with backup.dir", () => {
  it("writes a backup after READY and keeps answering", async () => {
    const box = await serveWithBackups("usb");
    mkdirSync(box.dir);
    try {
      expect(await box.ask()).toBe("好的");
      await box.service.waitFor("backup written", 120_000);
      expect(await box.ask()).toBe("好的");
      expect(readdirSync(box.dir)).toEqual([
        expect.stringMatching(/^clawbox-backup-home-.*\.age$/),
      ]);
      expect(await box.doctor()).toMatchObject({
        status: "ok",
        message: expect.stringContaining("last backup"),
      });
    } finally {
      await box.stop();
    }
  }, 180_000);

  it("a missing folder is one warning in the log and in doctor, never a failed turn", async () => {
    const box = await serveWithBackups("unmounted-usb");
    try {
      await box.service.waitFor(
        `backup not written: the backup folder ${box.dir} does not exist`,
        120_000,
      );
      expect(await box.ask()).toBe("好的");
      expect(await box.doctor()).toMatchObject({
        status: "warn",
        message: `the backup folder ${box.dir} does not exist: no automatic backups are being made`,
      });
    } finally {
      await box.stop();
    }
  }, 180_000);
});

describe("a full backup folder", () => {
  const unshare = spawnSync("unshare", ["-rm", "true"]).status === 0;
  if (!unshare)
    console.warn("skipped the full-folder checks: unshare -rm (user namespaces) unavailable");
  it.skipIf(!unshare)(
    "is a plain error of backup create that leaves no partial file, and a doctor warning",
    () => {
      // A 128 KiB tmpfs in a private mount namespace: an earlier 60 KiB backup and 40 KiB
      // of other files leave no room for the next backup (the database alone is ~240 KiB).
      const root = mkdtempSync(join(tmpdir(), "clawbox-full-usb-"));
      const home = join(root, "home");
      mkdirSync(home);
      const usb = join(root, "usb");
      mkdirSync(usb);
      writeFileSync(join(root, "passphrase"), "correct horse battery\n");
      writeFileSync(
        join(home, "clawbox.json"),
        JSON.stringify({ backup: { dir: usb, passphraseFile: join(root, "passphrase") } }),
      );
      const script = `
        set -e
        "${CLAWBOX_BIN}" --home "${home}" cron list > /dev/null
        mount -t tmpfs -o size=128k tmpfs "${usb}"
        head -c 61440 /dev/zero > "${usb}/clawbox-backup-home-20261201T030000Z.age"
        head -c 40960 /dev/zero > "${usb}/photos.bin"
        set +e
        "${CLAWBOX_BIN}" --home "${home}" backup create -o "${usb}/new.age" --passphrase-file "${root}/passphrase" > "${root}/create.out" 2> "${root}/create.err"
        echo $? > "${root}/create.code"
        ls -A "${usb}" > "${root}/usb.list"
        "${CLAWBOX_BIN}" --home "${home}" doctor --json > "${root}/doctor.json" 2>/dev/null
        true
      `;
      const ran = spawnSync("unshare", ["-rm", "sh", "-c", script], {
        encoding: "utf8",
        env: { ...process.env, CLAWBOX_CONFIG: "" },
      });
      expect(ran.stderr).toBe("");
      const read = (name: string) => readFileSync(join(root, name), "utf8");
      expect(read("create.code").trim()).toBe("1");
      expect(read("create.err")).toBe(
        `clawbox backup: the disk is full: no room for the backup in ${usb}; nothing was written (free some space (df -h), or write the backup elsewhere with -o)\n`,
      );
      expect(read("usb.list").split("\n").filter(Boolean).sort()).toEqual([
        "clawbox-backup-home-20261201T030000Z.age",
        "photos.bin",
      ]);
      const report = JSON.parse(read("doctor.json")) as {
        checks: { name: string; status: string; message: string }[];
      };
      expect(report.checks.find((c) => c.name === "backups")).toMatchObject({
        status: "warn",
        message: expect.stringMatching(new RegExp(`^the backup folder ${usb} is full: `)),
      });
    },
    120_000,
  );
});
