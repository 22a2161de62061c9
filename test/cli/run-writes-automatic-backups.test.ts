/**
 * docs/BACKUP.md, "Automatic backups": `clawbox run` with `backup.dir` writes a backup
 * there after READY while it keeps answering; with the folder missing (an unmounted USB
 * stick) it logs one warning, turns still work, and `clawbox doctor` warns with the fix.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiText, startFakeOpenAI } from "../fakes/openai-server.ts";
import { cloudOnlyConfig } from "../support/openai-provider-fixture.ts";
import { startService } from "../support/run-service.ts";
import { spawnCli } from "../support/spawn-cli.ts";

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
