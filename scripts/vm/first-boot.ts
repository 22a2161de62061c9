/**
 * From a blank card to a running service in the test machine, the way a Raspberry Pi
 * running Bookworm gets there (docs/FLASHING.md): boot 1 runs firstrun.sh from the kernel
 * command line (`systemd.run=`), which configures the system, removes itself and reboots;
 * boot 2 runs clawbox-firstboot.service, whose install.sh does `dpkg -i` of the arm64
 * .deb from the boot partition, installs the config and starts clawbox. Also the helpers
 * the checks share: waiting for the service, the arm64 .deb, and the guest's view of it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeCard } from "./card.ts";
import { type Image, Machine, prepareRun, ROOT } from "./machine.ts";

export const SERVICE_TIMEOUT_MS = 15 * 60_000;

/** Newest modification time (ms) of the files the .deb is built from. */
function newestSource(): number {
  let newest = statSync(join(ROOT, "package.json")).mtimeMs;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ["src", "systemd", "firmware-config"]) walk(join(ROOT, dir));
  return newest;
}

/**
 * dist/clawbox_<version>_arm64.deb, built with scripts/build.sh when absent or older than
 * a file under src/, systemd/ or firmware-config/ (a machine run tests the code at hand).
 */
export function ensureDeb(log: (line: string) => void, given?: string): string {
  if (given) return given;
  const version = (
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }
  ).version;
  const deb = join(ROOT, "dist", `clawbox_${version}_arm64.deb`);
  if (existsSync(deb) && statSync(deb).mtimeMs >= newestSource()) return deb;
  log(
    `${deb} ${existsSync(deb) ? "older than the sources" : "missing"}: building it (scripts/build.sh --arch arm64)`,
  );
  const result = spawnSync("bash", [join(ROOT, "scripts/build.sh"), "--arch", "arm64"], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0 || !existsSync(deb)) throw new Error("building the arm64 .deb failed");
  return deb;
}

export interface Installed {
  machine: Machine;
  /** Wall time of each step, ms. */
  timings: { firstrunMs: number; installMs: number };
}

/**
 * Writes the card, boots until firstrun.sh has rebooted the machine, boots again and
 * waits for clawbox to be active. Throws with the console's tail when a step fails.
 */
export async function installMachine(input: {
  image: Image;
  deb: string;
  dir: string;
  config: Record<string, unknown>;
  log: (line: string) => void;
}): Promise<Installed> {
  const { image, deb, dir, config, log } = input;
  const boot = writeCard(dir, { deb, publicKey: `${image.key}.pub`, config });
  const run = prepareRun(image, join(dir, "machine"), boot);
  const machine = new Machine(run);
  log(`boot 1 (firstrun.sh): ${machine.cmdline()}`);
  let started = Date.now();
  await machine.boot();
  await machine.waitForExit(SERVICE_TIMEOUT_MS);
  const firstrunMs = Date.now() - started;
  log(`boot 1 ended by itself after ${Math.round(firstrunMs / 1000)} s`);
  started = Date.now();
  await machine.boot();
  await machine.waitForSsh(SERVICE_TIMEOUT_MS);
  await waitForActive(machine, SERVICE_TIMEOUT_MS);
  const installMs = Date.now() - started;
  log(`boot 2: clawbox installed and active after ${Math.round(installMs / 1000)} s`);
  return { machine, timings: { firstrunMs, installMs } };
}

/** Polls `systemctl is-active clawbox` until active (READY=1 reached systemd). */
export async function waitForActive(machine: Machine, timeoutMs: number): Promise<number> {
  const started = Date.now();
  let last = "";
  for (;;) {
    const result = await machine.ssh("systemctl is-active clawbox", { timeoutMs: 60_000 });
    last = result.stdout.trim();
    if (last === "active") return Date.now() - started;
    if (Date.now() - started > timeoutMs) {
      const status = await machine.ssh(
        "systemctl status clawbox --no-pager; journalctl -u clawbox -b --no-pager | tail -n 40",
      );
      throw new Error(
        `clawbox not active after ${Math.round(timeoutMs / 1000)} s (${last}):\n${status.stdout}`,
      );
    }
    await Bun.sleep(2000);
  }
}

/** systemd's view of the service: main pid, restarts, READY time (µs since boot). */
export async function serviceState(machine: Machine): Promise<Record<string, string>> {
  const out = await machine.sshOk(
    "systemctl show clawbox -p MainPID -p NRestarts -p ActiveState -p SubState -p StatusText " +
      "-p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic -p Result",
  );
  return Object.fromEntries(
    out
      .trim()
      .split("\n")
      .map((line) => {
        const at = line.indexOf("=");
        return [line.slice(0, at), line.slice(at + 1)];
      }),
  );
}

/** Newest dist/*.deb name, for messages. */
export function debName(deb: string): string {
  return deb.split("/").pop() ?? deb;
}

export function listDir(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}
