/**
 * A fake boot partition (a temp folder holding what a freshly flashed Raspberry Pi OS card
 * has) and helpers to run scripts/prepare-sd.sh on it, shared by the appliance tests.
 */
import { spawnSync } from "node:child_process";
import { pbkdf2Sync } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
const script = join(ROOT, "scripts", "prepare-sd.sh");
export const KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIDmAm5AAf8qIE9j8wA4WTcLQ99d/RSMvkkjmJHxlU+N me@laptop";
/** Quotes, a backslash, shell metacharacters: every layer that could mangle it. */
export const PASSWORD = 'pa"ss\\wo&rd $HOME `x`';

export interface FakeCard {
  dir: string;
  boot: string;
  key: string;
  deb: string;
}

/** `boot` may be given (e.g. <root>/boot/firmware of a fake system); temp dirs go to `dirs`. */
export function makeFakeCard(trixie: boolean, dirs: string[], boot?: string): FakeCard {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-sd-"));
  dirs.push(dir);
  const bootDir = boot ?? join(dir, "bootfs");
  mkdirSync(bootDir, { recursive: true });
  writeFileSync(
    join(bootDir, "cmdline.txt"),
    "console=tty1 root=PARTUUID=abcd-02 rootfstype=ext4 rootwait quiet\n",
  );
  writeFileSync(join(bootDir, "config.txt"), "[all]\narm_64bit=1\n");
  if (trixie) writeFileSync(join(bootDir, "meta-data"), "instance-id: rpios-image\n");
  const key = join(dir, "id.pub");
  writeFileSync(key, `${KEY}\n`);
  const deb = join(dir, "clawbox_9.9.9_arm64.deb");
  writeFileSync(deb, "not really a deb");
  return { dir, boot: bootDir, key, deb };
}

export function prepare(args: string[], env: Record<string, string> = {}) {
  return spawnSync("bash", [script, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
}

/** WPA-PSK from passphrase and SSID (IEEE 802.11i: PBKDF2-HMAC-SHA1, 4096 rounds, 32 bytes). */
export function wpaPsk(ssid: string, passphrase: string): string {
  return pbkdf2Sync(passphrase, ssid, 4096, 32, "sha1").toString("hex");
}

/** Every file under `dir`, concatenated (to look for what must not be there). */
export function cardText(dir: string): string {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .map((path) => (statSync(path).isDirectory() ? cardText(path) : readFileSync(path, "latin1")))
    .join("\n");
}
