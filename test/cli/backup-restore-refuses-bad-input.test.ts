/**
 * docs/BACKUP.md, "Restoring": what `clawbox backup restore` refuses, each time with a
 * plain error and the home exactly as it was (files and bytes), nothing left beside it:
 * a wrong passphrase, a home that holds data (unless --force, which keeps the old home
 * aside), a truncated or tampered file, a file that is no backup, a backup from a newer
 * clawbox, a disk that fills up during the restore; and `backup create` without a
 * terminal or --passphrase-file is a usage error that writes nothing.
 */
import { Database } from "bun:sqlite";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLAWBOX_BIN, spawnCli } from "../support/spawn-cli.ts";

const TOKEN = "srv-token-3b9d0c6e2a7f4e81";
const LONG_NAME = `笔记/${"阳台的绣球花".repeat(8)}-浇水记录.md`;

let root: string;
let passFile: string;
let backup: string;
let newerBackup: string;

/** Every file under `dir` with its sha256, so "unchanged" means bytes, not names. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) visit(path);
      else out[relative(dir, path)] = createHash("sha256").update(readFileSync(path)).digest("hex");
    }
  };
  visit(dir);
  return out;
}

const env = (home: string) => ({ CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });

/** A home with a config (with a secret), a reminder and a workspace file with a long Chinese name. */
async function makeHome(name: string): Promise<string> {
  const home = join(root, name);
  mkdirSync(home);
  writeFileSync(join(home, "clawbox.json"), JSON.stringify({ server: { token: TOKEN } }));
  mkdirSync(join(home, "workspace", "笔记"), { recursive: true });
  writeFileSync(join(home, "workspace", LONG_NAME), "周六早上浇水\n");
  const added = await spawnCli(["cron", "add", `${name} 提醒`, "--every", "1d"], env(home));
  expect(added.code).toBe(0);
  return home;
}

async function create(home: string, output: string): Promise<void> {
  const made = await spawnCli(
    ["backup", "create", "-o", output, "--passphrase-file", passFile],
    env(home),
  );
  expect(made.stderr).toBe("");
  expect(made.code).toBe(0);
}

function restore(home: string, file: string, extra: string[] = [], pass = passFile) {
  return spawnCli(["backup", "restore", file, "--passphrase-file", pass, ...extra], env(home));
}

/** A fresh, empty home. */
function freshHome(name: string) {
  const home = join(root, name);
  mkdirSync(home);
  return home;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "clawbox-backup-refuses-"));
  passFile = join(root, "passphrase");
  writeFileSync(passFile, "correct horse battery staple\n");
  const home = await makeHome("box");
  backup = join(root, "box.age");
  await create(home, backup);
  // A database written by a newer clawbox has a migration this one does not know.
  const newer = await makeHome("newer-box");
  const db = new Database(join(newer, "clawbox.db"));
  db.run(
    "INSERT INTO schema_migrations(version, name, applied_at) VALUES (9901, 'from the future', 0)",
  );
  db.close();
  newerBackup = join(root, "newer.age");
  await create(newer, newerBackup);
}, 180_000);

describe("clawbox backup restore refuses, and changes nothing", () => {
  it("a wrong passphrase: a plain error, even with --force the home is untouched", async () => {
    const home = await makeHome("wrong-pass");
    const before = tree(home);
    const listing = readdirSync(root).sort();
    const wrong = join(root, "wrong-passphrase");
    writeFileSync(wrong, "not the passphrase\n");
    const run = await restore(home, backup, ["--force"], wrong);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `clawbox backup: wrong passphrase for ${backup} (type the passphrase the backup was made with; nothing was changed)\n`,
    );
    expect(tree(home)).toEqual(before);
    expect(readdirSync(root).sort()).toEqual([...listing, "wrong-passphrase"].sort());
  }, 120_000);

  it("a home that holds data without --force", async () => {
    const home = await makeHome("has-data");
    const before = tree(home);
    const run = await restore(home, backup);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the home ${home} already holds data; nothing was changed`);
    expect(tree(home)).toEqual(before);
  }, 120_000);

  it("with --force, replaces the home and keeps the old one aside, whole", async () => {
    const home = await makeHome("forced");
    const before = tree(home);
    const run = await restore(home, backup, ["--force"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const aside = readdirSync(root).filter((n) => n.startsWith("forced.before-restore-"));
    expect(aside).toHaveLength(1);
    expect(run.stdout).toContain(`the old data is kept at ${join(root, aside[0] as string)}`);
    expect(tree(join(root, aside[0] as string))).toEqual(before);
    // The restored home is box's: its reminder, its workspace file with the long name.
    expect(readFileSync(join(home, "workspace", LONG_NAME), "utf8")).toBe("周六早上浇水\n");
    const list = await spawnCli(["cron", "list"], env(home));
    expect(list.stdout).toContain("box 提醒");
    expect(list.stdout).not.toContain("forced 提醒");
  }, 120_000);

  it("a truncated or tampered file, or one that is no backup", async () => {
    const bytes = readFileSync(backup);
    const flipped = Buffer.from(bytes);
    const middle = Math.floor(bytes.length / 2);
    flipped[middle] = (flipped[middle] as number) ^ 0x01;
    const cases: [string, Uint8Array, string][] = [
      ["half.age", bytes.subarray(0, middle), "is damaged or cut short"],
      ["short.age", bytes.subarray(0, bytes.length - 10), "is damaged or cut short"],
      ["tampered.age", flipped, "is damaged or cut short"],
      ["notes.txt", Buffer.from("周六早上浇水\n"), "is not a clawbox backup"],
    ];
    for (const [name, content, message] of cases) {
      const file = join(root, name);
      writeFileSync(file, content);
      const home = freshHome(`fresh-${name}`);
      const listing = readdirSync(root).sort();
      const run = await restore(home, file);
      expect({ name, code: run.code }).toEqual({ name, code: 1 });
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain("nothing was changed");
      expect(readdirSync(home)).toEqual([]);
      expect(readdirSync(root).sort()).toEqual(listing);
    }
  }, 180_000);

  it("a backup from a newer clawbox (a newer database schema)", async () => {
    const home = freshHome("fresh-newer");
    const run = await restore(home, newerBackup);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/made by clawbox .* newer than this one .*schema version 9901/);
    expect(run.stderr).toContain("migrations 9901 unknown here");
    expect(readdirSync(home)).toEqual([]);
  }, 120_000);

  const unshare = spawnSync("unshare", ["-rm", "true"]).status === 0;
  if (!unshare)
    console.warn("skipped the full-disk restore: unshare -rm (user namespaces) unavailable");
  it.skipIf(!unshare)(
    "a disk that fills up during the restore leaves the old home as it was",
    async () => {
      // A 300 KiB tmpfs in a private mount namespace holds the old home; the restored
      // database (~240 KiB) does not fit beside it.
      const old = await makeHome("full-disk-old");
      const disk = join(root, "small-disk");
      mkdirSync(disk);
      const report = join(root, "full-disk-report.json");
      const script = `
        set -e
        mount -t tmpfs -o size=300k tmpfs "${disk}"
        cp -a "${old}" "${disk}/home"
        before=$(cd "${disk}" && find . -type f -exec sha256sum {} + | sort)
        set +e
        CLAWBOX_HOME="${disk}/home" CLAWBOX_CONFIG= "${CLAWBOX_BIN}" backup restore "${backup}" --passphrase-file "${passFile}" --force > "${root}/full-disk.out" 2> "${root}/full-disk.err"
        code=$?
        after=$(cd "${disk}" && find . -type f -exec sha256sum {} + | sort)
        [ "$before" = "$after" ] && same=true || same=false
        printf '{"code":%s,"same":%s,"entries":"%s"}' "$code" "$same" "$(ls -A "${disk}" | tr '\\n' ' ')" > "${report}"
      `;
      const ran = spawnSync("unshare", ["-rm", "sh", "-c", script], { encoding: "utf8" });
      expect(ran.stderr).toBe("");
      const result = JSON.parse(readFileSync(report, "utf8")) as {
        code: number;
        same: boolean;
        entries: string;
      };
      expect(readFileSync(join(root, "full-disk.err"), "utf8")).toContain(
        "the disk is full: the backup does not fit beside",
      );
      expect(result).toEqual({ code: 1, same: true, entries: "home " });
    },
    120_000,
  );
});

describe("clawbox backup create", () => {
  it("without a terminal and without --passphrase-file is a usage error that writes nothing", async () => {
    const home = freshHome("no-tty");
    const out = join(root, "no-tty-out");
    mkdirSync(out);
    const run = await spawnCli(["backup", "create", "-o", join(out, "b.age")], env(home));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "no terminal to ask for the passphrase: give --passphrase-file FILE",
    );
    expect(readdirSync(out)).toEqual([]);
  }, 60_000);
});
