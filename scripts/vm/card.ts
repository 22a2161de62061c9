/**
 * The boot partition of a freshly flashed card for the test machine: what Raspberry Pi OS
 * Bookworm's boot partition holds that matters here (cmdline.txt, config.txt), written by
 * the project's own `scripts/prepare-sd.sh --os bookworm` with the arm64 .deb, the
 * owner's key and a clawbox.json. cmdline.txt names the machine's devices (ttyAMA0,
 * /dev/vda) instead of the Pi's; everything prepare-sd.sh adds to it stays as written.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./machine.ts";

export const OWNER = "owner";
export const HOSTNAME = "clawbox";
export const TIMEZONE = "Asia/Shanghai";
/** The Pi's cmdline.txt, with the machine's console and root disk. */
export const BASE_CMDLINE =
  "console=ttyAMA0 root=/dev/vda rootfstype=ext4 fsck.repair=yes rootwait quiet";

export function writeCard(
  dir: string,
  input: { deb: string; publicKey: string; config: Record<string, unknown> },
): string {
  const boot = join(dir, "bootfs");
  mkdirSync(boot, { recursive: true });
  writeFileSync(join(boot, "cmdline.txt"), `${BASE_CMDLINE}\n`);
  writeFileSync(join(boot, "config.txt"), "[all]\narm_64bit=1\n");
  const configFile = join(dir, "clawbox.json");
  writeFileSync(configFile, `${JSON.stringify(input.config, null, 2)}\n`);
  const result = spawnSync(
    "bash",
    [
      join(ROOT, "scripts/prepare-sd.sh"),
      "--os",
      "bookworm",
      "--boot",
      boot,
      "--ssh-key",
      input.publicKey,
      "--hostname",
      HOSTNAME,
      "--user",
      OWNER,
      "--timezone",
      TIMEZONE,
      "--deb",
      input.deb,
      "--config",
      configFile,
    ],
    { encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`prepare-sd.sh failed: ${result.stderr}`);
  return boot;
}
