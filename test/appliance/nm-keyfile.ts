/**
 * NetworkManager's own reading of a Wi-Fi keyfile, shared by the first-boot tests: its
 * reader (`nmcli --offline connection modify`, network-manager) on a file we or netplan
 * wrote, next to its writer (`nmcli --offline connection add`) for the same SSID and
 * WPA key. Equal [wifi] and [wifi-security] sections mean NetworkManager will join the
 * network with that key.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect } from "vitest";

export const HAVE_NMCLI = spawnSync("nmcli", ["--version"]).status === 0;

/** A keyfile section as NetworkManager serializes it. */
function section(keyfile: string, name: string): string {
  const match = new RegExp(`\\[${name}\\]\\n([^[]*)`).exec(keyfile);
  return (match?.[1] ?? "").trim();
}

interface WifiSections {
  wifi: string;
  security: string;
  stderr: string;
}

/** How NetworkManager reads the keyfile at `path`. */
function nmRead(path: string): WifiSections {
  const run = spawnSync("nmcli", ["--offline", "connection", "modify", "connection.id", "x"], {
    input: readFileSync(path),
    encoding: "utf8",
  });
  return {
    wifi: section(run.stdout, "wifi"),
    security: section(run.stdout, "wifi-security"),
    stderr: run.stderr,
  };
}

/** What NetworkManager itself writes for `ssid` with the 64-hex WPA key `psk`. */
function nmReference(ssid: string, psk: string): WifiSections {
  const run = spawnSync(
    "nmcli",
    [
      ...["--offline", "connection", "add", "type", "wifi", "con-name", "x", "ssid", ssid],
      ...["wifi-sec.key-mgmt", "wpa-psk", "wifi-sec.psk", psk],
    ],
    { encoding: "utf8" },
  );
  return {
    wifi: section(run.stdout, "wifi"),
    security: section(run.stdout, "wifi-security"),
    stderr: run.stderr,
  };
}

/** Asserts that NetworkManager reads the keyfile at `path` as `ssid` with the WPA key `psk`. */
export function expectNetworkManagerReads(path: string, ssid: string, psk: string): void {
  const ours = nmRead(path);
  expect(ours.stderr).toBe("");
  const reference = nmReference(ssid, psk);
  expect(reference.stderr).toBe("");
  expect(ours.wifi).toBe(reference.wifi);
  expect(ours.security).toBe(reference.security);
}
