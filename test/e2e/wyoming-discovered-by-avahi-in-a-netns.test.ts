/**
 * Zero YAML (issue 40): a real `clawbox run` announces `_wyoming._tcp.local.` with its
 * port, seen by Debian's `avahi-browse` as Home Assistant's zeroconf discovery would see
 * it, and announces nothing when the server or `wyoming.zeroconf` is off. No multicast
 * touches this machine's network: the box runs in one network namespace the test
 * creates, avahi-daemon (with a private D-Bus) in a second, joined by a veth pair. The
 * peer namespace then asks `describe` over TCP as HA would, from an address in
 * `wyoming.allowFrom`. Needs root, `ip`, avahi-daemon, avahi-browse and dbus-daemon
 * (.ci/apt-packages); skips with the reason otherwise.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../support/run-service.ts";
import { CLAWBOX_BIN } from "../support/spawn-cli.ts";

const TOOLS = [
  "/usr/sbin/ip",
  "/usr/sbin/avahi-daemon",
  "/usr/bin/avahi-browse",
  "/usr/bin/dbus-daemon",
];
const n = process.pid % 10_000;
const NS_BOX = `cbwya${n}`;
const NS_HA = `cbwyb${n}`;
const VETH_BOX = `cbva${n}`;
const VETH_HA = `cbvb${n}`;
const NET = `10.79.${n % 250}`;
const BOX_IP = `${NET}.1`;
const HA_IP = `${NET}.2`;
const PORT = 10_700;

function sh(args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(args[0] as string, args.slice(1), { encoding: "utf8" });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

/** Why the test cannot run here, or undefined. */
function missing(): string | undefined {
  if (process.getuid?.() !== 0) return "not root (network namespaces need root)";
  const absent = TOOLS.filter((t) => !existsSync(t));
  if (absent.length > 0) return `missing ${absent.join(", ")} (see .ci/apt-packages)`;
  const probe = sh(["ip", "netns", "add", `${NS_BOX}probe`]);
  if (!probe.ok) return `cannot create a network namespace: ${probe.out.trim()}`;
  sh(["ip", "netns", "del", `${NS_BOX}probe`]);
  return undefined;
}

const reason = missing();
if (reason) console.warn(`skipping the mDNS discovery test: ${reason}`);

describe.skipIf(reason !== undefined)(
  "the Wyoming server seen by avahi-browse in a network namespace",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-zeroconf-"));
    const bus = `unix:path=${join(dir, "bus")}`;
    let dbus: ChildProcess | undefined;
    let avahi: ChildProcess | undefined;

    beforeAll(async () => {
      for (const step of [
        ["ip", "netns", "add", NS_BOX],
        ["ip", "netns", "add", NS_HA],
        ["ip", "-n", NS_BOX, "link", "set", "lo", "up"],
        ["ip", "-n", NS_HA, "link", "set", "lo", "up"],
        [
          "ip",
          "link",
          "add",
          VETH_BOX,
          "netns",
          NS_BOX,
          "type",
          "veth",
          "peer",
          "name",
          VETH_HA,
          "netns",
          NS_HA,
        ],
        ["ip", "-n", NS_BOX, "addr", "add", `${BOX_IP}/24`, "dev", VETH_BOX],
        ["ip", "-n", NS_HA, "addr", "add", `${HA_IP}/24`, "dev", VETH_HA],
        ["ip", "-n", NS_BOX, "link", "set", VETH_BOX, "up"],
        ["ip", "-n", NS_HA, "link", "set", VETH_HA, "up"],
      ]) {
        const r = sh(step);
        if (!r.ok) throw new Error(`${step.join(" ")}: ${r.out}`);
      }
      // A private system bus for avahi-daemon and avahi-browse (no system D-Bus is needed).
      writeFileSync(
        join(dir, "bus.conf"),
        `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>${bus}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>\n`,
      );
      dbus = spawn(
        "dbus-daemon",
        ["--config-file", join(dir, "bus.conf"), "--nofork", "--nopidfile"],
        {
          stdio: "ignore",
        },
      );
      writeFileSync(
        join(dir, "avahi.conf"),
        `[server]\nuse-ipv4=yes\nuse-ipv6=no\nallow-interfaces=${VETH_HA}\nenable-dbus=yes\n[publish]\npublish-addresses=no\npublish-hinfo=no\npublish-workstation=no\n`,
      );
      // Its own /run/avahi-daemon (pid file), so it never meets another avahi-daemon.
      avahi = spawn(
        "ip",
        [
          "netns",
          "exec",
          NS_HA,
          "unshare",
          "-m",
          "sh",
          "-c",
          `mkdir -p /run/avahi-daemon && mount -t tmpfs none /run/avahi-daemon && exec avahi-daemon -f ${join(dir, "avahi.conf")} --no-drop-root --no-chroot --no-rlimits`,
        ],
        {
          env: { ...process.env, DBUS_SYSTEM_BUS_ADDRESS: bus },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let log = "";
      avahi.stderr?.on("data", (d: Buffer) => {
        log += d.toString();
      });
      avahi.stdout?.on("data", (d: Buffer) => {
        log += d.toString();
      });
      for (let i = 0; i < 100 && !log.includes("Server startup complete"); i++)
        await new Promise((r) => setTimeout(r, 100));
      if (!log.includes("Server startup complete"))
        throw new Error(`avahi-daemon did not start:\n${log}`);
    }, 60_000);

    afterAll(() => {
      avahi?.kill("SIGTERM");
      dbus?.kill("SIGTERM");
      sh(["ip", "netns", "del", NS_BOX]);
      sh(["ip", "netns", "del", NS_HA]);
      rmSync(dir, { recursive: true, force: true });
    });

    /** `avahi-browse -rtp _wyoming._tcp` in HA's namespace: the resolved lines (`=`…). */
    function browse(): string[] {
      const r = spawnSync("ip", ["netns", "exec", NS_HA, "avahi-browse", "-rtp", "_wyoming._tcp"], {
        encoding: "utf8",
        env: { ...process.env, DBUS_SYSTEM_BUS_ADDRESS: bus },
        timeout: 10_000,
      });
      return r.stdout.split("\n").filter((line) => line.startsWith("="));
    }

    async function startBox(wyoming: Record<string, unknown>): Promise<RunningService> {
      const home = mkdtempSync(join(dir, "home-"));
      writeFileSync(
        join(home, "clawbox.json"),
        JSON.stringify({
          memory: { enabled: false },
          wyoming: { host: BOX_IP, port: PORT, allowFrom: [HA_IP], ...wyoming },
        }),
      );
      return startService(["--port", "0"], { CLAWBOX_HOME: home }, [
        "ip",
        "netns",
        "exec",
        NS_BOX,
        CLAWBOX_BIN,
        "run",
      ]);
    }

    async function stop(box: RunningService): Promise<void> {
      box.child.kill("SIGTERM");
      await box.exited;
    }

    it("announces nothing when the server is off, or when wyoming.zeroconf is false", async () => {
      for (const wyoming of [{ enabled: false }, { enabled: true, zeroconf: false }]) {
        const box = await startBox(wyoming);
        try {
          await new Promise((r) => setTimeout(r, 3000));
          expect(browse(), JSON.stringify(wyoming)).toEqual([]);
        } finally {
          await stop(box);
        }
      }
    }, 90_000);

    it("announces _wyoming._tcp with the box's name, address and port, and HA's address gets info", async () => {
      const box = await startBox({ enabled: true });
      try {
        let found: string[] = [];
        for (let i = 0; i < 20 && found.length === 0; i++) {
          found = browse();
          if (found.length === 0) await new Promise((r) => setTimeout(r, 500));
        }
        expect(found).toHaveLength(1);
        const fields = (found[0] ?? "").split(";");
        // =;iface;IPv4;name;type;domain;host;address;port;txt
        expect(fields[1]).toBe(VETH_HA);
        expect(fields[3]).toMatch(/^clawbox\\032/);
        expect(fields[4]).toBe("_wyoming._tcp");
        expect(fields[7]).toBe(BOX_IP);
        expect(fields[8]).toBe(String(PORT));
        // HA's side: describe from an allowed address over the veth.
        const script = `const s=require("node:net").connect(${PORT},"${BOX_IP}",()=>s.write('{"type":"describe"}\\n'));let b="";s.on("data",d=>{b+=d;if(b.includes("\\n")){console.log(b.split("\\n")[0]);s.destroy();}});`;
        const ha = spawnSync("ip", ["netns", "exec", NS_HA, process.execPath, "-e", script], {
          encoding: "utf8",
          timeout: 10_000,
        });
        expect(JSON.parse(ha.stdout.trim())).toMatchObject({ type: "info" });
      } finally {
        await stop(box);
      }
    }, 90_000);
  },
);
