/**
 * firmware-config/firstrun.sh (Bookworm first boot) run against a fake root filesystem
 * (CLAWBOX_FIRSTRUN_ROOT), with the card prepared by scripts/prepare-sd.sh itself and the
 * commands that change a real system (useradd, systemctl, raspi-config…) replaced by
 * recorders on PATH. visudo is the real one when installed. The NetworkManager keyfile is
 * checked with GLib's own keyfile parser (python3-gi) and with NetworkManager's reader
 * (`nmcli --offline`), for a hostile network name and password.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KEY, makeFakeCard, PASSWORD, prepare, wpaPsk } from "./fake-card.ts";
import { expectNetworkManagerReads, HAVE_NMCLI } from "./nm-keyfile.ts";

const SYSTEM_PYTHON = "/usr/bin/python3";
const HAVE_GI =
  spawnSync(SYSTEM_PYTHON, ["-c", "import gi; gi.require_version('GLib', '2.0')"]).status === 0;
const HAVE_VISUDO = existsSync("/usr/sbin/visudo");
if (!HAVE_GI) console.warn("skipping the GLib keyfile check: python3-gi is not installed");
if (!HAVE_NMCLI)
  console.warn("skipping the nmcli --offline check: network-manager is not installed");
if (!HAVE_VISUDO) console.warn("visudo is absent (package sudo): the sudoers check is skipped");

const SSID = 'My "Home"; \\net\\ ünïcode #1 ';
const CMDLINE = "console=tty1 root=PARTUUID=abcd-02 rootfstype=ext4 rootwait quiet";
const STUBS = [
  "hostnamectl",
  "id",
  "usermod",
  "groupmod",
  "useradd",
  "passwd",
  "chown",
  "systemctl",
  "raspi-config",
  "rfkill",
];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface FakeSystem {
  root: string;
  boot: string;
  calls(): string[];
  run(env?: Record<string, string>): { status: number | null; stderr: string };
  file(path: string): string;
}

/** A root with the files firstrun.sh edits, a card prepared for Bookworm, recorders on PATH. */
function fakeSystem(
  options: { userconf?: boolean; wifi?: boolean; extraStubs?: Record<string, string> } = {},
): FakeSystem {
  const card = makeFakeCard(false, dirs);
  const root = join(card.dir, "root");
  const boot = join(root, "boot", "firmware");
  const prepared = makeFakeCard(false, dirs, boot);
  const wifi = options.wifi ?? true;
  const run = prepare(
    [
      ...["--boot", boot, "--ssh-key", prepared.key, "--deb", prepared.deb, "--os", "bookworm"],
      ...["--hostname", "kitchen", "--user", "owner", "--timezone", "Europe/Berlin"],
      ...(wifi ? ["--wifi-ssid", SSID, "--wifi-country", "DE"] : []),
    ],
    { CLAWBOX_WIFI_PASSWORD: PASSWORD },
  );
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  for (const dir of [
    "etc/ssh",
    "etc/sudoers.d",
    "var/lib/NetworkManager",
    "var/lib/systemd/rfkill",
  ]) {
    mkdirSync(join(root, dir), { recursive: true });
  }
  writeFileSync(join(root, "etc/hosts"), "127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n");
  writeFileSync(join(root, "etc/ssh/sshd_config"), "#PasswordAuthentication yes\n");
  writeFileSync(
    join(root, "var/lib/NetworkManager/NetworkManager.state"),
    "[main]\nNetworkingEnabled=true\nWirelessEnabled=false\nWWANEnabled=true\n",
  );
  writeFileSync(join(root, "var/lib/systemd/rfkill/platform-fe300000.mmcnr:wlan"), "1\n");
  const bin = join(card.dir, "bin");
  mkdirSync(bin);
  const log = join(card.dir, "calls.log");
  for (const name of STUBS) {
    const body =
      options.extraStubs?.[name] ??
      (name === "id" ? 'echo "id $*" >>"$CALLS"; [ "$1" = pi ]' : `echo "${name} $*" >>"$CALLS"`);
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  for (const [name, body] of Object.entries(options.extraStubs ?? {})) {
    if (STUBS.includes(name)) continue;
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  if (options.userconf) {
    mkdirSync(join(root, "usr/lib/userconf-pi"), { recursive: true });
    writeFileSync(
      join(root, "usr/lib/userconf-pi/userconf"),
      '#!/bin/sh\necho "userconf $*" >>"$CALLS"\n',
    );
    chmodSync(join(root, "usr/lib/userconf-pi/userconf"), 0o755);
  }
  return {
    root,
    boot,
    calls: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []),
    run(env = {}) {
      const result = spawnSync("bash", [join(boot, "firstrun.sh")], {
        encoding: "utf8",
        env: {
          ...process.env,
          PATH: `${bin}:/usr/sbin:${process.env.PATH}`,
          CALLS: log,
          CLAWBOX_FIRSTRUN_ROOT: root,
          ...env,
        },
      });
      return { status: result.status, stderr: result.stderr };
    },
    file: (path) => readFileSync(join(root, path), "utf8"),
  };
}

/** GLib's keyfile parser on `path`: the [wifi] ssid and [wifi-security] psk strings. */
function glibRead(path: string): { ssid: string; psk: string } {
  const script = [
    "import gi, json, sys",
    "gi.require_version('GLib', '2.0')",
    "from gi.repository import GLib",
    "kf = GLib.KeyFile()",
    "kf.load_from_file(sys.argv[1], GLib.KeyFileFlags.NONE)",
    "print(json.dumps({'ssid': kf.get_string('wifi', 'ssid'), 'psk': kf.get_string('wifi-security', 'psk')}))",
  ].join("\n");
  const run = spawnSync(SYSTEM_PYTHON, ["-c", script, path], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as { ssid: string; psk: string };
}

describe("firstrun.sh on Bookworm", () => {
  it("writes a Wi-Fi keyfile that GLib and NetworkManager read as the hostile SSID with its WPA key", () => {
    const system = fakeSystem();
    const run = system.run();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const keyfile = join(
      system.root,
      "etc/NetworkManager/system-connections/clawbox-wifi.nmconnection",
    );
    expect(statSync(keyfile).mode & 0o777).toBe(0o600);
    const psk = wpaPsk(SSID, PASSWORD);
    expect(readFileSync(keyfile, "utf8")).not.toContain(PASSWORD);
    if (HAVE_GI) {
      const parsed = glibRead(keyfile);
      const bytes = parsed.ssid.split(";").filter(Boolean).map(Number);
      expect(Buffer.from(bytes).toString("utf8")).toBe(SSID);
      expect(parsed.psk).toBe(psk);
    }
    if (HAVE_NMCLI) {
      // NetworkManager's reader on the file must agree with NetworkManager's own writer.
      expectNetworkManagerReads(keyfile, SSID, psk);
    }
  });

  it("enables Wi-Fi in NetworkManager's state and rfkill, sets the country, and arms the watchdog", () => {
    const system = fakeSystem();
    expect(system.run().status).toBe(0);
    expect(system.file("var/lib/NetworkManager/NetworkManager.state")).toContain(
      "WirelessEnabled=true",
    );
    expect(system.file("var/lib/NetworkManager/NetworkManager.state")).not.toContain(
      "WirelessEnabled=false",
    );
    expect(system.file("var/lib/systemd/rfkill/platform-fe300000.mmcnr:wlan").trim()).toBe("0");
    expect(system.calls()).toContain("raspi-config nonint do_wifi_country DE");
    expect(system.calls()).toContain("raspi-config nonint do_change_locale en_US.UTF-8");
    expect(system.file("etc/systemd/system.conf.d/clawbox-watchdog.conf")).toBe(
      "[Manager]\nRuntimeWatchdogSec=15\nRebootWatchdogSec=2min\n",
    );
  });

  it("configures the user, SSH, hostname and install unit, then removes its entry and settings", () => {
    const system = fakeSystem();
    expect(system.run().status).toBe(0);
    expect(system.file("etc/sudoers.d/010_clawbox-admin")).toBe("owner ALL=(ALL) NOPASSWD:ALL\n");
    expect(system.file("home/owner/.ssh/authorized_keys")).toBe(`${KEY}\n`);
    expect(system.file("etc/hosts")).toContain("127.0.1.1\tkitchen");
    expect(system.file("etc/ssh/sshd_config")).toBe("PasswordAuthentication no\n");
    expect(system.file("etc/timezone")).toBe("Europe/Berlin\n");
    expect(system.calls()).toContain("usermod -l owner pi");
    expect(system.file("etc/systemd/system/clawbox-firstboot.service")).toContain(
      "ExecStart=/bin/sh /boot/firmware/clawbox/install.sh",
    );
    expect(readFileSync(join(system.boot, "cmdline.txt"), "utf8")).toBe(`${CMDLINE}\n`);
    expect(existsSync(join(system.boot, "firstrun.sh"))).toBe(false);
    expect(existsSync(join(system.boot, "clawbox", "firstboot.env"))).toBe(false);
  });

  it("renames the first user with Raspberry Pi's userconf when the image has it", () => {
    const system = fakeSystem({ userconf: true, wifi: false });
    expect(system.run().status).toBe(0);
    expect(system.calls()).toContain("userconf owner !");
    expect(system.calls().some((c) => c.startsWith("usermod -l"))).toBe(false);
  });

  it("changes nothing without firstboot.env, but removes its cmdline entry so the Pi boots normally", () => {
    const system = fakeSystem();
    rmSync(join(system.boot, "clawbox", "firstboot.env"));
    const run = system.run();
    expect(run.status).toBe(0);
    expect(existsSync(join(system.root, "etc/sudoers.d/010_clawbox-admin"))).toBe(false);
    expect(existsSync(join(system.root, "etc/sudoers.d/010_clawbox-admin.tmp"))).toBe(false);
    expect(system.calls().filter((c) => !c.startsWith("id "))).toEqual([]);
    expect(system.file("etc/hosts")).toContain("raspberrypi");
    expect(readFileSync(join(system.boot, "cmdline.txt"), "utf8")).toBe(`${CMDLINE}\n`);
    expect(readFileSync(join(system.boot, "clawbox", "FIRSTBOOT-FAILED.txt"), "utf8")).toContain(
      "firstboot.env is missing",
    );
  });

  it("changes nothing when a required setting is empty", () => {
    const system = fakeSystem({ wifi: false });
    const env = join(system.boot, "clawbox", "firstboot.env");
    writeFileSync(env, readFileSync(env, "utf8").replace(/^CLAWBOX_USER=.*$/m, "CLAWBOX_USER=''"));
    expect(system.run().status).toBe(0);
    expect(existsSync(join(system.root, "etc/sudoers.d/010_clawbox-admin"))).toBe(false);
    expect(readFileSync(join(system.boot, "clawbox", "FIRSTBOOT-FAILED.txt"), "utf8")).toContain(
      "CLAWBOX_USER",
    );
    expect(readFileSync(join(system.boot, "cmdline.txt"), "utf8")).toBe(`${CMDLINE}\n`);
  });

  it("installs no sudoers line that visudo rejects", () => {
    const system = fakeSystem({ wifi: false, extraStubs: { visudo: "exit 1" } });
    expect(system.run().status).toBe(0);
    expect(existsSync(join(system.root, "etc/sudoers.d/010_clawbox-admin"))).toBe(false);
    expect(readFileSync(join(system.boot, "clawbox", "FIRSTBOOT-FAILED.txt"), "utf8")).toContain(
      "visudo rejected",
    );
  });

  it.skipIf(!HAVE_VISUDO)("passes the real visudo check", () => {
    const system = fakeSystem({ wifi: false });
    expect(system.run().status).toBe(0);
    expect(existsSync(join(system.boot, "clawbox", "FIRSTBOOT-FAILED.txt"))).toBe(false);
    expect(existsSync(join(system.root, "etc/sudoers.d/010_clawbox-admin"))).toBe(true);
  });

  it("logs a failing raspi-config instead of hiding it", () => {
    const system = fakeSystem({
      extraStubs: { "raspi-config": 'echo "raspi-config $*" >>"$CALLS"; exit 1' },
    });
    expect(system.run().status).toBe(0);
    expect(system.file("var/log/clawbox-firstrun.log")).toContain(
      "raspi-config do_wifi_country DE failed",
    );
  });
});
