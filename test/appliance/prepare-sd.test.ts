/**
 * scripts/prepare-sd.sh against a fake boot partition (a temp folder holding the files a
 * freshly flashed Raspberry Pi OS card has): the cloud-init files parse as YAML with the
 * given values intact (quotes, backslashes, $ in a Wi-Fi password), the Bookworm path
 * writes a shell-quoted settings file and one cmdline entry, and reruns are idempotent.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cardText, KEY, makeFakeCard, PASSWORD, prepare, wpaPsk } from "./fake-card.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const fakeCard = (trixie: boolean) => makeFakeCard(trixie, dirs);

function yaml(file: string): unknown {
  return Bun.YAML.parse(readFileSync(file, "utf8"));
}

describe("prepare-sd.sh", () => {
  it("writes cloud-init files that keep every value intact (Trixie)", () => {
    const card = fakeCard(true);
    const run = prepare(
      [
        "--boot",
        card.boot,
        "--ssh-key",
        card.key,
        "--deb",
        card.deb,
        "--hostname",
        "kitchen-box",
        "--user",
        "owner",
        "--timezone",
        "Asia/Shanghai",
        "--wifi-ssid",
        'Home "5G"',
        "--wifi-country",
        "DE",
      ],
      { CLAWBOX_WIFI_PASSWORD: PASSWORD },
    );
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const user = yaml(join(card.boot, "user-data")) as Record<string, unknown>;
    expect(user.hostname).toBe("kitchen-box");
    expect(user.timezone).toBe("Asia/Shanghai");
    expect(user.users).toEqual([
      expect.objectContaining({ name: "owner", ssh_authorized_keys: [KEY] }),
    ]);
    expect(user.runcmd).toContainEqual(["sh", "/boot/firmware/clawbox/install.sh"]);
    // The Wi-Fi key leaves the FAT partition after first boot; the watchdog is armed.
    expect(user.runcmd).toContainEqual(["sh", "-c", ": > /boot/firmware/network-config"]);
    expect(user.write_files).toEqual([
      {
        path: "/etc/systemd/system.conf.d/clawbox-watchdog.conf",
        permissions: "0644",
        content: "[Manager]\nRuntimeWatchdogSec=15\nRebootWatchdogSec=2min\n",
      },
    ]);
    const net = yaml(join(card.boot, "network-config")) as {
      network: { wifis: { wlan0: Record<string, unknown> } };
    };
    expect(net.network.wifis.wlan0["regulatory-domain"]).toBe("DE");
    // The 64-hex WPA key, never the passphrase (IEEE 802.11i PBKDF2, computed here by node:crypto).
    expect(net.network.wifis.wlan0["access-points"]).toEqual({
      'Home "5G"': { password: wpaPsk('Home "5G"', PASSWORD) },
    });
    expect(cardText(card.boot)).not.toContain(PASSWORD);
    expect(yaml(join(card.boot, "meta-data"))).toEqual({
      "instance-id": expect.stringMatching(/^clawbox-\d+$/),
    });
    expect(readFileSync(join(card.boot, "clawbox", "clawbox_9.9.9_arm64.deb"), "utf8")).toBe(
      "not really a deb",
    );
    expect(readFileSync(join(card.boot, "cmdline.txt"), "utf8")).not.toContain("systemd.run");
  });

  it("leaves Wi-Fi out without --wifi-ssid and keeps one config.txt block on reruns", () => {
    const card = fakeCard(true);
    for (let i = 0; i < 2; i++) {
      expect(prepare(["--boot", card.boot, "--ssh-key", card.key, "--deb", card.deb]).status).toBe(
        0,
      );
    }
    const net = yaml(join(card.boot, "network-config")) as { network: Record<string, unknown> };
    expect(net.network.wifis).toBeUndefined();
    expect(net.network.ethernets).toEqual({ eth0: { dhcp4: true, optional: true } });
    const config = readFileSync(join(card.boot, "config.txt"), "utf8");
    expect(config.startsWith("[all]\narm_64bit=1\n")).toBe(true);
    expect(config.match(/# >>> clawbox/g)).toHaveLength(1);
    expect(config).not.toMatch(/^camera_auto_detect=1/m);
    expect(config).not.toMatch(/^dtparam=watchdog/m);
  });

  it("uses firstrun.sh with shell-quoted settings on Bookworm", () => {
    const card = fakeCard(false);
    for (let i = 0; i < 2; i++) {
      const run = prepare(
        [
          ...["--boot", card.boot, "--ssh-key", card.key, "--deb", card.deb],
          ...["--wifi-ssid", "net$1", "--wifi-country", "DE"],
        ],
        { CLAWBOX_WIFI_PASSWORD: PASSWORD },
      );
      expect(run.status).toBe(0);
    }
    const cmdline = readFileSync(join(card.boot, "cmdline.txt"), "utf8");
    expect(cmdline.split("\n").filter(Boolean)).toHaveLength(1);
    expect(cmdline.match(/systemd\.run=\/boot\/firmware\/firstrun\.sh/g)).toHaveLength(1);
    expect(cmdline).toContain("root=PARTUUID=abcd-02");
    const env = join(card.boot, "clawbox", "firstboot.env");
    const shown = spawnSync(
      "bash",
      [
        "-c",
        `. "${env}"; printf '%s\\n' "$CLAWBOX_WIFI_SSID" "$CLAWBOX_WIFI_PSK" "$CLAWBOX_SSH_KEY"`,
      ],
      {
        encoding: "utf8",
      },
    );
    expect(shown.stdout).toBe(`net$1\n${wpaPsk("net$1", PASSWORD)}\n${KEY}\n`);
    expect(cardText(card.boot)).not.toContain(PASSWORD);
    expect(readFileSync(join(card.boot, "firstrun.sh"), "utf8")).toContain(
      "clawbox-firstboot.service",
    );
  });

  it("refuses a private key, a missing card and a bad host name with a clear message", () => {
    const card = fakeCard(true);
    const priv = join(card.boot, "..", "id");
    writeFileSync(priv, "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n");
    const wrongKey = prepare(["--boot", card.boot, "--ssh-key", priv, "--deb", card.deb]);
    expect(wrongKey.status).toBe(2);
    expect(wrongKey.stderr).toContain("not an OpenSSH public key");
    const noCard = prepare([
      "--boot",
      join(card.boot, "nope"),
      "--ssh-key",
      card.key,
      "--deb",
      card.deb,
    ]);
    expect(noCard.stderr).toContain("not a folder");
    const badHost = prepare([
      "--boot",
      card.boot,
      "--ssh-key",
      card.key,
      "--deb",
      card.deb,
      "--hostname",
      "my box",
    ]);
    expect(badHost.stderr).toContain("--hostname my box");
  });

  it("--pull-model leaves the marker that makes install.sh pull the recommended model once online", () => {
    const card = fakeCard(true);
    const args = ["--boot", card.boot, "--ssh-key", card.key, "--deb", card.deb];
    const run = prepare([...args, "--pull-model"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(existsSync(join(card.boot, "clawbox", "pull-model"))).toBe(true);
    const install = readFileSync(join(card.boot, "clawbox", "install.sh"), "utf8");
    expect(install).toContain("ExecStart=/usr/bin/clawbox models pull --recommended");
    expect(install).toContain("After=network-online.target");
    const again = prepare(args);
    expect(again.status).toBe(0);
    expect(existsSync(join(card.boot, "clawbox", "pull-model"))).toBe(false);
  });

  it("--console-secret puts the console's login secret on the card for install.sh to move, and a rerun without it removes it", () => {
    const card = fakeCard(true);
    const args = ["--boot", card.boot, "--ssh-key", card.key, "--deb", card.deb];
    const secret = "my-box-secret-$'\"x";
    const run = prepare([...args, "--console-secret", secret]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const file = join(card.boot, "clawbox", "console-secret");
    expect(readFileSync(file, "utf8")).toBe(`${secret}\n`);
    expect(statSync(file).mode & 0o077).toBe(0);
    const install = readFileSync(join(card.boot, "clawbox", "install.sh"), "utf8");
    expect(install).toContain(
      'install -o clawbox -g clawbox -m 0600 "$here/console-secret" /var/lib/clawbox/console-secret',
    );
    expect(install).toContain('rm -f "$here/console-secret"');
    const short = prepare([...args, "--console-secret", "short"]);
    expect(short.status).toBe(2);
    expect(short.stderr).toContain("--console-secret: at least 16 characters");
    const spaced = prepare([...args, "--console-secret", "has a space in it, long"]);
    expect(spaced.status).toBe(2);
    const again = prepare(args);
    expect(again.status).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});
