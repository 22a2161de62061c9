/**
 * The arm64 test machine (docs/VM.md): the one module the VM checks and benchmarks use to
 * build or reuse the cached image, prepare a run (a qcow2 overlay on the image and a FAT
 * boot disk), boot it with `qemu-system-aarch64 -M virt` (direct kernel boot, TCG), reach
 * it over SSH through a forwarded port, and end it: cleanly (`poweroff`) or as a power cut
 * (SIGKILL of qemu: the guest's page cache and disk cache are lost, nothing is flushed).
 *
 * As on a Raspberry Pi, the kernel command line is read from `cmdline.txt` on the boot
 * disk at every boot (firstrun.sh edits it), and a reboot ends qemu (`-no-reboot`): the
 * caller boots again, which reads the file again. Guarantees: a machine never outlives
 * the process that booted it (qemu is killed on exit), and every boot's serial console is
 * kept in the run folder (`console-<n>.log`) for failure messages.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { freePort } from "../../test/support/mosquitto.ts";

export { freePort };

export const ROOT = resolve(import.meta.dir, "../..");
/** The guest sees the host's 127.0.0.1 at this address (qemu user networking). */
export const HOST_FROM_GUEST = "10.0.2.2";
/** The guest port the image forwards to clawbox's 127.0.0.1:18790 (build-image.sh). */
const GUEST_HTTP_PORT = 8790;

export interface Image {
  dir: string;
  rootfs: string;
  kernel: string;
  initrd: string;
  /** Private key root's authorized_keys holds; its `.pub` is given to prepare-sd.sh too. */
  key: string;
}

export interface MachineRun {
  dir: string;
  image: Image;
  /** qcow2 overlay on the image's root file system: everything a run writes goes here. */
  disk: string;
  /** The FAT boot partition (cmdline.txt, config.txt, firstrun.sh, clawbox/…). */
  bootDisk: string;
}

/** Host tools the machine needs, by Debian package; installed with apt when missing (root). */
const TOOLS: [string, string][] = [
  ["qemu-system-aarch64", "qemu-system-arm"],
  ["qemu-img", "qemu-utils"],
  ["mkfs.vfat", "dosfstools"],
  ["mcopy", "mtools"],
  ["ssh", "openssh-client"],
  ["mosquitto", "mosquitto"],
];

export function ensureTools(log: (line: string) => void = () => {}): void {
  const missing = TOOLS.filter(
    ([tool]) =>
      spawnSync("sh", ["-c", `PATH=$PATH:/usr/sbin:/sbin command -v ${tool}`]).status !== 0,
  ).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  log(`apt-get install ${missing.join(" ")}`);
  const result = spawnSync(
    "sh",
    [
      "-c",
      `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${missing.join(" ")}`,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  if (result.status !== 0) throw new Error(`cannot install ${missing.join(" ")} (run as root)`);
}

/** Builds the image (or finds it in the cache) and returns where it is. */
export function ensureImage(log: (line: string) => void = () => {}): Image {
  const given = process.env.CLAWBOX_VM_IMAGE;
  if (given) return imageIn(given);
  const started = Date.now();
  const result = spawnSync("bash", [join(ROOT, "scripts/vm/build-image.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (result.status !== 0) throw new Error(`scripts/vm/build-image.sh failed (${result.status})`);
  const dir = result.stdout.trim().split("\n").pop() ?? "";
  log(`image ${dir} (${Math.round((Date.now() - started) / 1000)} s)`);
  return imageIn(dir);
}

function imageIn(dir: string): Image {
  return {
    dir,
    rootfs: join(dir, "rootfs.img"),
    kernel: join(dir, "vmlinuz"),
    initrd: join(dir, "initrd.img"),
    key: join(dir, "id_ed25519"),
  };
}

function run(command: string, args: string[], what: string): string {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`${what}: ${command} ${args.join(" ")}: ${result.stderr || result.stdout}`);
  return result.stdout;
}

/**
 * A fresh run in `dir`: an overlay disk on the image and a FAT boot disk holding the
 * files of `bootFolder` (what a freshly flashed card's boot partition holds).
 */
export function prepareRun(image: Image, dir: string, bootFolder: string): MachineRun {
  mkdirSync(dir, { recursive: true });
  const disk = join(dir, "root.qcow2");
  const bootDisk = join(dir, "boot.img");
  run(
    "qemu-img",
    ["create", "-q", "-f", "qcow2", "-F", "raw", "-b", image.rootfs, disk],
    "overlay disk",
  );
  // 256 MiB: the .deb (~65 MB) and the firmware files fit with room to spare.
  run("mkfs.vfat", ["-C", "-n", "BOOTFS", bootDisk, String(256 * 1024)], "boot disk");
  const entries = readdirNames(bootFolder);
  if (entries.length > 0)
    run(
      "mcopy",
      ["-s", "-Q", "-i", bootDisk, ...entries.map((e) => join(bootFolder, e)), "::/"],
      "boot disk files",
    );
  return { dir, image, disk, bootDisk };
}

function readdirNames(dir: string): string[] {
  return spawnSync("ls", ["-A", dir], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
}

/** A file of the boot disk, as the host sees it (`mtype`); undefined when absent. */
export function readBootFile(run: MachineRun, path: string): string | undefined {
  const result = spawnSync("mtype", ["-i", run.bootDisk, `::/${path}`], { encoding: "utf8" });
  return result.status === 0 ? result.stdout : undefined;
}

export interface BootOptions {
  cpus?: number;
  memoryMb?: number;
}

export interface SshResult {
  code: number;
  stdout: string;
  stderr: string;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});
// A run stopped from outside (CI's time limit, Ctrl-C) takes its machines with it.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    console.error(`vm: ${signal}: powering the machine off`);
    process.exit(signal === "SIGTERM" ? 143 : 130);
  });
}

export class Machine {
  /** Host port forwarded to the guest's sshd. */
  sshPort = 0;
  /** Host port forwarded to the guest's :8790 → clawbox 127.0.0.1:18790. */
  httpPort = 0;
  boots = 0;
  /** Times the emulated hardware watchdog expired (reported by qemu, no reset). */
  watchdogExpiries = 0;
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> | undefined;

  constructor(
    readonly run: MachineRun,
    private readonly options: BootOptions = {},
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && !this.child.killed;
  }

  consoleLog(boot = this.boots): string {
    const file = join(this.run.dir, `console-${boot}.log`);
    return existsSync(file) ? readFileSync(file, "utf8") : "";
  }

  /** The kernel command line for this boot: cmdline.txt from the boot disk, as the Pi's firmware reads it. */
  cmdline(): string {
    const text = readBootFile(this.run, "cmdline.txt");
    if (text === undefined) throw new Error(`no cmdline.txt on ${this.run.bootDisk}`);
    return text.replace(/\r/g, "").split("\n")[0]?.trim() ?? "";
  }

  /** Starts qemu (keeping the forwarded ports of earlier boots); returns at once. */
  async boot(): Promise<void> {
    if (this.running) throw new Error("the machine is already running");
    if (this.sshPort === 0) this.sshPort = await freePort();
    if (this.httpPort === 0) this.httpPort = await freePort();
    this.boots += 1;
    const { image, disk, bootDisk, dir } = this.run;
    const args = [
      "-M",
      "virt",
      "-cpu",
      "cortex-a76",
      "-smp",
      String(this.options.cpus ?? 2),
      "-m",
      String(this.options.memoryMb ?? 1024),
      "-display",
      "none",
      "-monitor",
      "none",
      "-serial",
      `file:${join(dir, `console-${this.boots}.log`)}`,
      "-no-reboot",
      // The hardware watchdog's expiry is reported, not acted on: under TCG on a busy host
      // systemd can miss its 15 s petting window (a false alarm a real board would not have).
      "-action",
      "watchdog=debug",
      "-kernel",
      image.kernel,
      "-initrd",
      image.initrd,
      "-append",
      this.cmdline(),
      "-drive",
      `if=none,id=root,file=${disk},format=qcow2,cache=writeback`,
      "-device",
      "virtio-blk-pci,drive=root",
      "-drive",
      `if=none,id=boot,file=${bootDisk},format=raw,cache=writeback`,
      "-device",
      "virtio-blk-pci,drive=boot",
      "-netdev",
      `user,id=net0,hostfwd=tcp:127.0.0.1:${this.sshPort}-:22,hostfwd=tcp:127.0.0.1:${this.httpPort}-:${GUEST_HTTP_PORT}`,
      "-device",
      "virtio-net-pci,netdev=net0,romfile=",
      // A hardware watchdog for systemd's RuntimeWatchdogSec (the Pi has bcm2835-wdt).
      "-device",
      "i6300esb",
      "-object",
      "rng-random,filename=/dev/urandom,id=rng0",
      "-device",
      "virtio-rng-pci,rng=rng0",
    ];
    const child = spawn("qemu-system-aarch64", args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (d) => {
      stderr += d;
      const expiries = String(d).match(/watchdog/gi)?.length ?? 0;
      if (expiries > 0) {
        this.watchdogExpiries += expiries;
        console.warn(`  (the machine's hardware watchdog expired: systemd starved under TCG)`);
      }
    });
    live.add(child);
    this.child = child;
    this.exited = new Promise((resolveExit) => {
      child.once("exit", (code) => {
        live.delete(child);
        if (code !== 0 && code !== null && stderr) console.error(`qemu: ${stderr.trim()}`);
        resolveExit(code);
      });
    });
  }

  /** Power cut: SIGKILL qemu (no shutdown, no flush of the guest's caches). */
  async powerCut(): Promise<void> {
    if (!this.child) return;
    this.child.kill("SIGKILL");
    await this.exited;
    this.child = undefined;
  }

  /** Waits for qemu to end by itself (a guest reboot or poweroff with -no-reboot). */
  async waitForExit(timeoutMs: number): Promise<void> {
    if (!this.child) return;
    const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), timeoutMs).unref());
    const outcome = await Promise.race([this.exited, timer]);
    if (outcome === "timeout") {
      await this.powerCut();
      throw new Error(`the machine did not stop within ${timeoutMs / 1000} s`);
    }
    this.child = undefined;
  }

  /** A clean shutdown (systemctl poweroff), falling back to a power cut after `timeoutMs`. */
  async shutdown(timeoutMs = 120_000): Promise<void> {
    if (!this.running) return;
    await this.ssh("systemctl poweroff", { timeoutMs: 10_000 }).catch(() => undefined);
    await this.waitForExit(timeoutMs).catch(() => undefined);
  }

  private sshArgs(user: string, timeoutS: number): string[] {
    return [
      "-i",
      this.run.image.key,
      "-p",
      String(this.sshPort),
      "-o",
      "StrictHostKeyChecking=no",
      "-o",
      "UserKnownHostsFile=/dev/null",
      "-o",
      "LogLevel=ERROR",
      "-o",
      "BatchMode=yes",
      "-o",
      `ConnectTimeout=${timeoutS}`,
      "-o",
      "ServerAliveInterval=5",
      // One connection per boot and user, shared by every command (a key exchange under
      // TCG costs seconds).
      "-o",
      "ControlMaster=auto",
      "-o",
      `ControlPath=${join(this.run.dir, `ssh-${this.boots}-${user}.sock`)}`,
      "-o",
      "ControlPersist=120",
      `${user}@127.0.0.1`,
    ];
  }

  /** Runs `command` in the guest (as root unless `user`); never throws on a non-zero exit. */
  ssh(
    command: string,
    options: { user?: string; timeoutMs?: number; input?: string } = {},
  ): Promise<SshResult> {
    const timeoutMs = options.timeoutMs ?? 300_000;
    return new Promise((resolveSsh) => {
      const child = spawn(
        "ssh",
        [...this.sshArgs(options.user ?? "root", Math.ceil(timeoutMs / 1000)), command],
        {
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => {
        stdout += d;
      });
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolveSsh({ code: code ?? -1, stdout, stderr });
      });
      child.stdin.end(options.input ?? "");
    });
  }

  /** Runs `command` and throws with its output when it fails. */
  async sshOk(
    command: string,
    options: { user?: string; timeoutMs?: number; input?: string } = {},
  ) {
    const result = await this.ssh(command, options);
    if (result.code !== 0)
      throw new Error(`guest: ${command}: exit ${result.code}: ${result.stderr}${result.stdout}`);
    return result.stdout;
  }

  /** Polls until SSH answers (the guest has booted far enough); returns the ms waited. */
  async waitForSsh(timeoutMs: number, user = "root"): Promise<number> {
    const started = Date.now();
    for (;;) {
      if (!this.running) throw new Error(`qemu ended while booting:\n${this.consoleTail()}`);
      const result = await this.ssh("true", { user, timeoutMs: 15_000 });
      if (result.code === 0) return Date.now() - started;
      if (Date.now() - started > timeoutMs)
        throw new Error(
          `no SSH after ${Math.round(timeoutMs / 1000)} s (${result.stderr.trim()}):\n${this.consoleTail()}`,
        );
      await Bun.sleep(2000);
    }
  }

  consoleTail(lines = 40): string {
    return this.consoleLog().split("\n").slice(-lines).join("\n");
  }

  /** Copies a host file into the guest (cat over SSH, no scp needed in the guest). */
  async copyTo(local: string, remote: string): Promise<void> {
    const size = statSync(local).size;
    const result = spawnSync(
      "sh",
      [
        "-c",
        `ssh ${this.sshArgs("root", 30)
          .map((a) => `'${a}'`)
          .join(" ")} 'cat > ${remote}' < '${local}'`,
      ],
      { encoding: "utf8" },
    );
    if (result.status !== 0) throw new Error(`copy ${local} (${size} B): ${result.stderr}`);
  }
}
