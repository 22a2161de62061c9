/**
 * The Trixie network-config (cloud-init hands it to netplan, rendered by NetworkManager)
 * as scripts/prepare-sd.sh writes it, run through the real `netplan generate --root-dir`
 * (Debian netplan.io): a hostile SSID and the 64-hex WPA key as the `password` must be
 * accepted, and the NetworkManager keyfile netplan generates must carry that key and
 * SSID exactly as NetworkManager itself would write them (read back with
 * `nmcli --offline`). Skipped with a printed reason when netplan is not installed.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeFakeCard, PASSWORD, prepare, wpaPsk } from "./fake-card.ts";
import { expectNetworkManagerReads, HAVE_NMCLI } from "./nm-keyfile.ts";

const NETPLAN = ["/usr/sbin/netplan", "/usr/bin/netplan"].find((path) => existsSync(path));
if (!NETPLAN) console.warn("skipping the netplan check: netplan is not installed (netplan.io)");
if (NETPLAN && !HAVE_NMCLI)
  console.warn("the nmcli --offline read-back is skipped: network-manager is not installed");

/** Quotes, a backslash, YAML's ": " and " #", non-ASCII. */
const SSID = `Tom's "5G" \\ café: #1`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs netplan on `networkConfig` installed the way cloud-init installs it; returns the root. */
function generate(networkConfig: string): { root: string; status: number | null; stderr: string } {
  const root = mkdtempSync(join(tmpdir(), "clawbox-netplan-"));
  dirs.push(root);
  mkdirSync(join(root, "etc/netplan"), { recursive: true });
  const installed = join(root, "etc/netplan/50-cloud-init.yaml");
  copyFileSync(networkConfig, installed);
  chmodSync(installed, 0o600);
  const run = spawnSync(NETPLAN ?? "netplan", ["generate", "--root-dir", root], {
    encoding: "utf8",
  });
  return { root, status: run.status, stderr: run.stderr };
}

const connections = (root: string) =>
  readdirSync(join(root, "run/NetworkManager/system-connections")).sort();

describe.skipIf(!NETPLAN)("netplan on the Trixie network-config", () => {
  it("accepts the 64-hex WPA key with a hostile SSID and hands NetworkManager that key and SSID", () => {
    const card = makeFakeCard(true, dirs);
    const prepared = prepare(
      [
        ...["--boot", card.boot, "--ssh-key", card.key, "--deb", card.deb],
        ...["--wifi-ssid", SSID, "--wifi-country", "DE"],
      ],
      { CLAWBOX_WIFI_PASSWORD: PASSWORD },
    );
    expect(prepared.status).toBe(0);
    const { root, status, stderr } = generate(join(card.boot, "network-config"));
    expect(stderr).toBe("");
    expect(status).toBe(0);

    const files = connections(root);
    expect(files).toHaveLength(2);
    const wifi = files.find((f) => f.startsWith("netplan-wlan0-"));
    expect(wifi).toBeDefined();
    const keyfile = join(root, "run/NetworkManager/system-connections", wifi ?? "");
    const psk = wpaPsk(SSID, PASSWORD);
    const text = readFileSync(keyfile, "utf8");
    expect(text).toContain(`\npsk=${psk}\n`);
    expect(text).toContain("\nkey-mgmt=wpa-psk\n");
    expect(text).not.toContain(PASSWORD);
    // The regulatory domain is applied too (netplan's own unit).
    expect(readFileSync(join(root, "run/systemd/system/netplan-regdom.service"), "utf8")).toMatch(
      /iw reg set DE$/m,
    );
    if (HAVE_NMCLI) {
      // NetworkManager's reader on the file must agree with NetworkManager's own writer.
      expectNetworkManagerReads(keyfile, SSID, psk);
    }
  });

  it("accepts the Ethernet-only config (no --wifi-ssid): DHCP on eth0, no Wi-Fi connection", () => {
    const card = makeFakeCard(true, dirs);
    const prepared = prepare(["--boot", card.boot, "--ssh-key", card.key, "--deb", card.deb]);
    expect(prepared.status).toBe(0);
    const { root, status, stderr } = generate(join(card.boot, "network-config"));
    expect(stderr).toBe("");
    expect(status).toBe(0);
    expect(connections(root)).toEqual(["netplan-eth0.nmconnection"]);
    const eth = readFileSync(
      join(root, "run/NetworkManager/system-connections/netplan-eth0.nmconnection"),
      "utf8",
    );
    expect(eth).toMatch(/\[ipv4\]\nmethod=auto/);
  });
});
