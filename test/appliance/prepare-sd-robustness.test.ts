/**
 * prepare-sd.sh on awkward cards: switching between the Trixie (cloud-init) and Bookworm
 * (firstrun.sh) modes leaves only one first-boot mechanism, a config from an earlier run
 * is not installed again, config.txt without a final newline or with CRLF line ends gets
 * one clean block, and system account names and a missing Wi-Fi country are refused.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeFakeCard, PASSWORD, prepare } from "./fake-card.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const base = (card: { boot: string; key: string; deb: string }) => [
  ...["--boot", card.boot, "--ssh-key", card.key, "--deb", card.deb],
];

describe("prepare-sd.sh robustness", () => {
  it("switches between Trixie and Bookworm modes without leaving the other mode's files", () => {
    const card = makeFakeCard(true, dirs);
    expect(prepare(base(card)).status).toBe(0);
    expect(existsSync(join(card.boot, "user-data"))).toBe(true);

    const bookworm = prepare([...base(card), "--os", "bookworm"]);
    expect(bookworm.stderr).toBe("");
    for (const f of ["user-data", "network-config", "meta-data"]) {
      expect(existsSync(join(card.boot, f)), f).toBe(false);
    }
    expect(existsSync(join(card.boot, "firstrun.sh"))).toBe(true);
    expect(readFileSync(join(card.boot, "cmdline.txt"), "utf8")).toContain("systemd.run=");

    expect(prepare([...base(card), "--os", "trixie"]).status).toBe(0);
    expect(existsSync(join(card.boot, "firstrun.sh"))).toBe(false);
    expect(existsSync(join(card.boot, "clawbox", "firstboot.env"))).toBe(false);
    expect(readFileSync(join(card.boot, "cmdline.txt"), "utf8")).toBe(
      "console=tty1 root=PARTUUID=abcd-02 rootfstype=ext4 rootwait quiet\n",
    );
    expect(existsSync(join(card.boot, "user-data"))).toBe(true);
  });

  it("keeps cloud-init files it did not write when switching to Bookworm", () => {
    const card = makeFakeCard(false, dirs);
    writeFileSync(join(card.boot, "user-data"), "#cloud-config\n# the user's own\n");
    expect(prepare([...base(card), "--os", "bookworm"]).status).toBe(0);
    expect(readFileSync(join(card.boot, "user-data"), "utf8")).toContain("the user's own");
  });

  it("removes a clawbox.json from an earlier run when none is given", () => {
    const card = makeFakeCard(true, dirs);
    const config = join(card.dir, "clawbox.json");
    writeFileSync(config, '{"server":{"token":"0123456789abcdef"}}');
    expect(prepare([...base(card), "--config", config]).status).toBe(0);
    expect(existsSync(join(card.boot, "clawbox", "clawbox.json"))).toBe(true);
    expect(prepare(base(card)).status).toBe(0);
    expect(existsSync(join(card.boot, "clawbox", "clawbox.json"))).toBe(false);
  });

  it("starts the config.txt block on its own line when the file lacks a final newline", () => {
    const card = makeFakeCard(true, dirs);
    writeFileSync(join(card.boot, "config.txt"), "[all]\narm_64bit=1");
    expect(prepare(base(card)).status).toBe(0);
    const config = readFileSync(join(card.boot, "config.txt"), "utf8");
    expect(config.startsWith("[all]\narm_64bit=1\n# >>> clawbox\n")).toBe(true);
  });

  it("replaces an earlier block in a CRLF config.txt and keeps the user's lines", () => {
    const card = makeFakeCard(true, dirs);
    writeFileSync(
      join(card.boot, "config.txt"),
      "[all]\r\ndtoverlay=imx219\r\n# >>> clawbox\r\n[all]\r\nold=1\r\n# <<< clawbox\r\ngpu_mem=64\r\n",
    );
    for (let i = 0; i < 2; i++) expect(prepare(base(card)).status).toBe(0);
    const config = readFileSync(join(card.boot, "config.txt"), "utf8");
    expect(config).not.toContain("old=1");
    expect(config.match(/# >>> clawbox/g)).toHaveLength(1);
    expect(config.startsWith("[all]\r\ndtoverlay=imx219\r\ngpu_mem=64\r\n# >>> clawbox\n")).toBe(
      true,
    );
  });

  it("refuses system account names for --user", () => {
    const card = makeFakeCard(true, dirs);
    for (const user of ["root", "clawbox", "daemon", "systemd-network"]) {
      const run = prepare([...base(card), "--user", user]);
      expect(run.status, user).toBe(2);
      expect(run.stderr).toContain(`--user ${user}: a system account name`);
    }
  });

  it("requires the Wi-Fi country with an SSID and checks the passphrase length", () => {
    const card = makeFakeCard(true, dirs);
    const noCountry = prepare([...base(card), "--wifi-ssid", "home"], {
      CLAWBOX_WIFI_PASSWORD: PASSWORD,
    });
    expect(noCountry.status).toBe(2);
    expect(noCountry.stderr).toContain("--wifi-country is required with --wifi-ssid");
    const short = prepare([...base(card), "--wifi-ssid", "home", "--wifi-country", "DE"], {
      CLAWBOX_WIFI_PASSWORD: "short",
    });
    expect(short.status).toBe(2);
    expect(short.stderr).toContain("8 to 63 characters");
    // Ethernet only: no country needed.
    expect(prepare(base(card)).status).toBe(0);
  });

  it("names an unknown option as unknown, wherever it stands, and a known one without its value", () => {
    const card = makeFakeCard(true, dirs);
    for (const args of [["--bogus"], [...base(card), "--bogus"], ["--bogus", "x", ...base(card)]]) {
      const run = prepare(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain("prepare-sd: unknown option --bogus");
      expect(run.stderr).not.toContain("needs a value");
    }
    const missing = prepare([...base(card), "--hostname"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("prepare-sd: --hostname needs a value");
  });
});
