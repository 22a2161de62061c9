/**
 * `npm run bench -- vm-boot [--json] [--boots N] [--deb FILE]`: boot to READY inside the
 * arm64 test machine under emulation (docs/VM.md), as relative figures only (TCG is
 * 10–30× slower than a Pi and this host is shared). Installs clawbox from a card the way a
 * Pi does (firstrun.sh, reboot, install.sh), then powers the machine off and on N times
 * (default 3) and reads systemd's own clock in the guest for each boot:
 *
 * - kernel start → READY (`ActiveEnterTimestampMonotonic` of clawbox.service),
 * - exec → READY (`ExecMainStartTimestampMonotonic` to the same),
 * - power-on → active as seen from the host (qemu start until `systemctl is-active` says
 *   active over SSH; includes the polling).
 *
 * JSON: {boots, kernelToReadyS, execToReadyMs, powerOnToActiveS (medians), firstrunS,
 * installS, loadAverage}.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDeb, installMachine, serviceState, waitForActive } from "../vm/first-boot.ts";
import { ensureImage, ensureTools } from "../vm/machine.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const boots = Number(option("--boots") ?? 3);
const log = (line: string) => {
  if (!json) console.log(line);
};
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

ensureTools(log);
const image = ensureImage(log);
const deb = ensureDeb(log, option("--deb"));
const work = mkdtempSync(join(tmpdir(), "clawbox-vm-boot-"));
const config = JSON.parse(
  readFileSync(join(import.meta.dir, "../../systemd/clawbox.json"), "utf8"),
);
const { machine, timings } = await installMachine({ image, deb, dir: work, config, log });
const kernelToReady: number[] = [];
const execToReady: number[] = [];
const powerOnToActive: number[] = [];
try {
  for (let i = 0; i < boots; i++) {
    await machine.shutdown();
    const started = Date.now();
    await machine.boot();
    await machine.waitForSsh(15 * 60_000);
    await waitForActive(machine, 15 * 60_000);
    powerOnToActive.push((Date.now() - started) / 1000);
    const state = await serviceState(machine);
    const ready = Number(state.ActiveEnterTimestampMonotonic);
    kernelToReady.push(ready / 1e6);
    execToReady.push((ready - Number(state.ExecMainStartTimestampMonotonic)) / 1000);
    log(
      `boot ${i + 1}: kernel → READY ${round(ready / 1e6)} s, exec → READY ${Math.round(execToReady.at(-1) ?? 0)} ms, power-on → active ${round(powerOnToActive.at(-1) ?? 0)} s`,
    );
  }
} finally {
  await machine.shutdown(60_000);
  rmSync(work, { recursive: true, force: true });
}
const result = {
  boots,
  kernelToReadyS: round(median(kernelToReady)),
  execToReadyMs: Math.round(median(execToReady)),
  powerOnToActiveS: round(median(powerOnToActive)),
  firstrunS: Math.round(timings.firstrunMs / 1000),
  installS: Math.round(timings.installMs / 1000),
  loadAverage: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  emulated: "qemu-system-aarch64 TCG, cortex-a76, 2 vCPU, 1 GiB (relative figures only)",
};
console.log(json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
