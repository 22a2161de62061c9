/**
 * `npm run vm:test [-- --cuts N] [--short] [--deb FILE] [--rate R] [--keep]`: the box as
 * an appliance, in a full-system arm64 machine (docs/VM.md). Builds or reuses the cached
 * image, writes a card with scripts/prepare-sd.sh and boots it as a Pi would (firstrun.sh,
 * reboot, install.sh → `dpkg -i`), then checks under systemd: the service is active with
 * READY seen, its journal is clean, `systemctl stop` finishes within the drain, the
 * hardware-watchdog drop-in is in force, a stopped main process (SIGSTOP) is killed and
 * restarted by the service watchdog and comes back READY, firstrun.sh refuses bad
 * settings. Then power cuts: inbound traffic from this host on QQ, the WeCom app, the
 * WeCom bot and MQTT while qemu is SIGKILLed at random points (during boot, right after a
 * first start, under traffic), booted again each time; after each boot the service must
 * start unattended, `PRAGMA integrity_check` must say ok and the config and workspace
 * files must be whole; at the end every acknowledged message must have exactly one reply.
 *
 * Prints PASS/FAIL lines and a summary line; exits non-zero on any failure. `--short`
 * (CI): one power cut instead of 20, everything else the same.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WORKSPACE_TEMPLATES } from "../../src/workspace/templates/index.ts";
import { openaiText } from "../../test/fakes/openai-server.ts";
import { HOSTNAME, OWNER, TIMEZONE } from "./card.ts";
import {
  ensureDeb,
  installMachine,
  SERVICE_TIMEOUT_MS,
  serviceState,
  waitForActive,
} from "./first-boot.ts";
import { ensureImage, ensureTools, HOST_FROM_GUEST, Machine, ROOT } from "./machine.ts";
import { Traffic } from "./traffic.ts";

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const short = flag("--short");
const cuts = Number(option("--cuts") ?? (short ? 1 : 20));
const rate = Number(option("--rate") ?? 0.25);
const keep = flag("--keep");
const started = Date.now();

let passed = 0;
let failed = 0;
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
const log = (line: string) => console.log(`  [${elapsed()}] ${line}`);
function check(name: string, ok: boolean, detail = ""): boolean {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${!ok && detail ? `\n${detail.trim()}` : ""}`);
  return ok;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
/** Every content each checked file may hold ("old or new"); the config gets its one version. */
const knownFiles = new Map<string, Set<string>>(
  Object.entries(WORKSPACE_TEMPLATES).map(([name, text]) => [
    `/var/lib/clawbox/workspace/${name}`,
    new Set([sha(text)]),
  ]),
);

const work = mkdtempSync(join(tmpdir(), "clawbox-vm-test-"));
ensureTools(log);
const traffic = await Traffic.start({ hostFromBox: HOST_FROM_GUEST, memoryWriteEvery: 3 });
const MEMORY_MD = "/var/lib/clawbox/workspace/MEMORY.md";
let machine: Machine | undefined;
let lastReport: ReturnType<Traffic["report"]> | undefined;
const counts = {
  cuts: 0,
  integrityFailures: 0,
  tornFiles: 0,
  unattendedFailures: 0,
  bootToActiveMs: [] as number[],
};

try {
  const image = ensureImage(log);
  const deb = ensureDeb(log, option("--deb"));
  const config = traffic.boxConfig();
  knownFiles.set(
    "/etc/clawbox/clawbox.json",
    new Set([sha(`${JSON.stringify(config, null, 2)}\n`)]),
  );
  const reuse = option("--reuse-run");
  if (reuse) {
    // Development shortcut: a run folder kept by an earlier `--keep` run, already installed.
    machine = new Machine({
      dir: join(reuse, "card/machine"),
      image,
      disk: join(reuse, "card/machine/root.qcow2"),
      bootDisk: join(reuse, "card/machine/boot.img"),
    });
    machine.boots = 2;
    await machine.boot();
    await machine.waitForSsh(SERVICE_TIMEOUT_MS);
    await machine.sshOk(`cat > /etc/clawbox/clawbox.json && systemctl restart clawbox`, {
      input: `${JSON.stringify(config, null, 2)}\n`,
      timeoutMs: 600_000,
    });
    await waitForActive(machine, SERVICE_TIMEOUT_MS);
  } else {
    const installed = await installMachine({ image, deb, dir: join(work, "card"), config, log });
    machine = installed.machine;
  }
  const m = machine;
  traffic.setCallbackBase(`http://127.0.0.1:${m.httpPort}`);

  await firstBootChecks(m);
  await serviceChecks(m);
  await stopWithinDrain(m);
  await watchdogRestarts(m);
  await firstrunRefusesBadSettings(m);
  await powerCuts(m);
} catch (error) {
  check("the run completed", false, error instanceof Error ? error.message : String(error));
} finally {
  await traffic.stop();
  if (machine?.running) await machine.shutdown(60_000);
  await traffic.close();
  if (!keep && failed === 0) rmSync(work, { recursive: true, force: true });
  else console.log(`run folder kept: ${work}`);
}
const boots = counts.bootToActiveMs;
console.log(
  `vm:test: power cuts ${counts.cuts}, lost ${lastReport?.lost ?? "?"}, duplicates ${lastReport?.duplicates ?? "?"}, ` +
    `integrity failures ${counts.integrityFailures}, torn files ${counts.tornFiles}, ` +
    `unattended start failures ${counts.unattendedFailures}; boot→active median ${
      boots.length
        ? Math.round([...boots].sort((a, b) => a - b)[Math.floor(boots.length / 2)] ?? 0) / 1000
        : "?"
    } s; hardware watchdog expiries ${machine?.watchdogExpiries ?? 0} (reported by qemu, no reset); ` +
    `${passed} passed, ${failed} failed; ${Math.round((Date.now() - started) / 60_000)} min`,
);
process.exit(failed === 0 ? 0 : 1);

// ---- the checks ----

async function firstBootChecks(m: Machine): Promise<void> {
  const boot = await m.sshOk(
    "ls -A /boot/firmware /boot/firmware/clawbox; cat /boot/firmware/cmdline.txt",
  );
  check(
    "firstrun.sh removed itself and its cmdline.txt entry",
    !/firstrun\.sh|systemd\.run/.test(boot),
    boot,
  );
  check(
    "firstboot.env removed, no FIRSTBOOT-FAILED.txt",
    !/firstboot\.env|FIRSTBOOT-FAILED/.test(boot),
  );
  const owner = await m.ssh(
    "id -un 1000; getent passwd pi || true; ls -d /home/*; sudo -n true && echo sudo-ok",
    {
      user: OWNER,
    },
  );
  check(
    `user pi renamed to ${OWNER}, logs in with the card's key, sudo works`,
    owner.code === 0 &&
      /^owner\n/.test(owner.stdout) &&
      !/^pi:/m.test(owner.stdout) &&
      owner.stdout.includes("/home/owner") &&
      owner.stdout.includes("sudo-ok"),
    `exit ${owner.code}: ${owner.stdout}${owner.stderr}`,
  );
  const system = await m.sshOk(
    "hostname; readlink /etc/localtime; grep -c PasswordAuthentication\\ no /etc/ssh/sshd_config; " +
      "cat /etc/systemd/system.conf.d/clawbox-watchdog.conf; systemctl show -p RuntimeWatchdogUSec -p RebootWatchdogUSec; " +
      "journalctl -b --no-pager -q | grep -i 'hardware watchdog' | head -n 1",
  );
  check(
    `hostname ${HOSTNAME}, timezone ${TIMEZONE}, password login off`,
    system.startsWith(`${HOSTNAME}\n`) && system.includes(TIMEZONE) && /\n1\n/.test(system),
    system,
  );
  check(
    "hardware watchdog drop-in in force: RuntimeWatchdogUSec=15s, RebootWatchdogUSec=2min",
    system.includes("RuntimeWatchdogSec=15") &&
      system.includes("RuntimeWatchdogUSec=15s") &&
      system.includes("RebootWatchdogUSec=2min"),
    system,
  );
  check(
    "systemd pets the machine's hardware watchdog (i6300esb)",
    /hardware watchdog/i.test(system),
    system,
  );
  const install = await m.sshOk(
    "dpkg -s clawbox | grep -E '^(Status|Version):'; tail -n 3 /var/log/clawbox-firstboot.log; " +
      "stat -c '%U:%G %a' /etc/clawbox/clawbox.json; ls /boot/firmware/clawbox; systemctl is-enabled clawbox-firstboot.service clawbox.service || true",
  );
  check(
    "install.sh: dpkg -i of the arm64 .deb from the boot partition",
    /Status: install ok installed/.test(install) && /clawbox installed: clawbox /.test(install),
    install,
  );
  check(
    "the card's clawbox.json installed as root:clawbox 0660 and removed from the card",
    /root:clawbox 660/.test(install) &&
      !/clawbox\.json/.test(install.split("\n").slice(4).join("\n")),
    install,
  );
}

async function serviceChecks(m: Machine): Promise<void> {
  const state = await serviceState(m);
  check(
    "systemctl is-active clawbox: active (Type=notify: READY=1 seen by systemd)",
    state.ActiveState === "active" && state.SubState === "running",
    JSON.stringify(state),
  );
  check(
    "systemd shows the service's STATUS= line",
    /listening on http:\/\/127\.0\.0\.1:18790/.test(state.StatusText ?? ""),
    state.StatusText,
  );
  const execToReady =
    (Number(state.ActiveEnterTimestampMonotonic) - Number(state.ExecMainStartTimestampMonotonic)) /
    1000;
  log(
    `exec → READY ${Math.round(execToReady)} ms under emulation (boot → READY ${Math.round(Number(state.ActiveEnterTimestampMonotonic) / 1e6)} s)`,
  );
  // Traffic on every channel once, through the machine's network.
  const { nonces } = await traffic.sendEachAndWait(180_000);
  const replies = traffic.replies();
  check(
    "one message on QQ, WeCom app, WeCom bot and MQTT each answered once from inside the machine",
    nonces.every((n) => replies.get(n) === 1),
    nonces.map((n) => `${n}:${replies.get(n) ?? 0}`).join(" "),
  );
  const journal = await m.sshOk("journalctl -u clawbox -b --no-pager -q -p warning");
  check("journalctl -u clawbox: no warnings or errors", journal.trim() === "", journal);
}

async function stopWithinDrain(m: Machine): Promise<void> {
  // A reply still being written when the stop comes: the drain lets it finish. The model
  // answers this one message slowly (6 stream events, 1.5 s apart).
  const before = traffic.model.requests.length;
  const nonce = traffic.send("qq");
  traffic.model.enqueue(openaiText(`re [n:${nonce}]`, { delayMs: 1500 }));
  const deadline0 = Date.now() + 120_000;
  while (traffic.model.requests.length <= before && Date.now() < deadline0) await Bun.sleep(200);
  const stop = await m.sshOk(
    // While it stops: the service's processes and threads each second (for a failure).
    '(for i in $(seq 1 40); do echo "--- $(date +%T.%N)"; pid=$(systemctl show -p MainPID --value clawbox); ' +
      "cat /sys/fs/cgroup/system.slice/clawbox.service/cgroup.procs 2>/dev/null | while read p; do " +
      "for t in /proc/$p/task/*; do echo \"$p $(basename $t) $(cut -d' ' -f3 $t/stat) $(cat $t/wchan) $(cat $t/comm)\"; done; done; sleep 1; done > /tmp/stop-threads.log 2>&1 &) ; " +
      "sleep 1; s=$(date +%s%N); systemctl stop clawbox; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); " +
      "systemctl show clawbox -p Result -p ExecMainStatus -p ExecMainCode; " +
      "journalctl -u clawbox -b --no-pager -q -n 20",
    { timeoutMs: 120_000 },
  );
  const ms = Number(stop.split("\n")[0]);
  const stopOk = ms < 30_000 && /Result=success/.test(stop) && !/SIGKILL|timed out/i.test(stop);
  const threads = stopOk ? "" : (await m.ssh("cat /tmp/stop-threads.log")).stdout;
  check(
    "systemctl stop ends within the drain (< TimeoutStopSec=30 s), exit 0, no SIGKILL",
    stopOk,
    `${ms} ms\n${stop}\nthe service's threads during the stop (pid tid state wchan name):\n${threads}`,
  );
  await m.sshOk("systemctl start clawbox", { timeoutMs: 600_000 });
  await waitForActive(m, 600_000);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && (traffic.replies().get(nonce) ?? 0) < 1) await Bun.sleep(1000);
  check(
    "the message in flight at the stop is answered exactly once",
    traffic.replies().get(nonce) === 1,
    `${traffic.replies().get(nonce) ?? 0} replies`,
  );
}

async function watchdogRestarts(m: Machine): Promise<void> {
  const before = await serviceState(m);
  const out = await m.sshOk(
    `pid=$(systemctl show -p MainPID --value clawbox); s=$(date +%s%N); kill -STOP $pid; ` +
      'while [ "$(systemctl show -p MainPID --value clawbox)" = "$pid" ]; do sleep 0.5; done; k=$(date +%s%N); ' +
      'until [ "$(systemctl is-active clawbox)" = active ]; do sleep 0.5; done; r=$(date +%s%N); ' +
      "echo $(( (k - s) / 1000000 )) $(( (r - s) / 1000000 )); journalctl -u clawbox -b --no-pager -q | grep -iE 'watchdog|crashed|killed|start' | tail -n 8",
    { timeoutMs: 600_000 },
  );
  const [killMs, readyMs] = (out.split("\n")[0] ?? "").split(" ").map(Number);
  const after = await serviceState(m);
  check(
    "service watchdog: a SIGSTOPped main process is killed within WatchdogSec=30 s (SIGKILL, no crash report)",
    (killMs ?? Infinity) <= 31_000 && /watchdog timeout/i.test(out) && !/has crashed/i.test(out),
    `killed after ${killMs} ms\n${out}`,
  );
  check(
    "… and restarted by systemd (new main pid, NRestarts+1), READY again",
    after.MainPID !== before.MainPID &&
      Number(after.NRestarts) === Number(before.NRestarts) + 1 &&
      after.ActiveState === "active",
    `READY again ${readyMs} ms after the SIGSTOP; ${JSON.stringify(after)}`,
  );
}

async function firstrunRefusesBadSettings(m: Machine): Promise<void> {
  const script = readFileSync(join(ROOT, "firmware-config/firstrun.sh"), "utf8");
  const cases: [string, string, RegExp][] = [
    ["missing firstboot.env", "", /firstboot\.env is missing/],
    [
      "user root",
      "CLAWBOX_HOSTNAME=box\nCLAWBOX_USER=root\nCLAWBOX_SSH_KEY='ssh-ed25519 AAAA x'\nCLAWBOX_TIMEZONE=UTC\n",
      /system account/,
    ],
    [
      "bad Wi-Fi key",
      "CLAWBOX_HOSTNAME=box\nCLAWBOX_USER=someone\nCLAWBOX_SSH_KEY='ssh-ed25519 AAAA x'\nCLAWBOX_TIMEZONE=UTC\nCLAWBOX_WIFI_SSID=home\nCLAWBOX_WIFI_PSK=secret\nCLAWBOX_WIFI_COUNTRY=DE\n",
      /64-hex/,
    ],
    [
      "bad hostname",
      "CLAWBOX_HOSTNAME='bad host'\nCLAWBOX_USER=someone\nCLAWBOX_SSH_KEY='ssh-ed25519 AAAA x'\nCLAWBOX_TIMEZONE=UTC\n",
      /HOSTNAME/,
    ],
  ];
  for (const [name, env, reason] of cases) {
    const out = await m.ssh(
      [
        "set -e; r=$(mktemp -d); mkdir -p $r/boot/firmware/clawbox $r/etc/sudoers.d",
        "echo 'console=ttyAMA0 root=/dev/vda rootwait quiet systemd.run=/boot/firmware/firstrun.sh systemd.run_success_action=reboot systemd.unit=kernel-command-line.target' > $r/boot/firmware/cmdline.txt",
        "cat > $r/boot/firmware/firstrun.sh",
        ...(env ? [`printf %s ${shellQuote(env)} > $r/boot/firmware/clawbox/firstboot.env`] : []),
        "h=$(hostname); CLAWBOX_FIRSTRUN_ROOT=$r bash $r/boot/firmware/firstrun.sh",
        "cat $r/boot/firmware/clawbox/FIRSTBOOT-FAILED.txt; cat $r/boot/firmware/cmdline.txt",
        'ls $r/etc/sudoers.d | wc -l; [ "$(hostname)" = "$h" ] && echo hostname-unchanged; id someone 2>/dev/null || echo no-user',
        "rm -rf $r",
      ].join("\n"),
      { input: script },
    );
    check(
      `firstboot.env validation (${name}): nothing changed, reason on the card, cmdline entry removed`,
      out.code === 0 &&
        reason.test(out.stdout) &&
        !out.stdout.includes("systemd.run") &&
        /\n0\nhostname-unchanged\nno-user/.test(out.stdout),
      out.stdout + out.stderr,
    );
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** One guest-side look at the database and the files after a boot. */
async function afterBootChecks(m: Machine, label: string): Promise<void> {
  const out = await m.ssh(
    "runuser -u clawbox -- sqlite3 /var/lib/clawbox/clawbox.db 'PRAGMA integrity_check' 2>&1 | tr '\\n' ' '; echo; " +
      `for f in /etc/clawbox/clawbox.json ${MEMORY_MD} ${[...knownFiles.keys()].filter((f) => f.includes("/workspace/")).join(" ")}; do ` +
      'if [ -e "$f" ]; then echo "$(sha256sum < "$f" | cut -c1-64) $(stat -c %s "$f") $f"; else echo "missing - $f"; fi; done',
    { timeoutMs: 120_000 },
  );
  const [integrity, ...files] = out.stdout.trim().split("\n");
  if (!check(`${label}: PRAGMA integrity_check ok`, integrity?.trim() === "ok", integrity))
    counts.integrityFailures += 1;
  const torn: string[] = [];
  for (const line of files) {
    const [hash, size, path] = line.split(" ");
    if (!path) continue;
    if (hash === "missing") {
      // A fresh-state cut may land before the workspace exists: missing is "old".
      continue;
    }
    const known = path === MEMORY_MD ? traffic.memoryHashes : knownFiles.get(path);
    if (!known?.has(hash ?? "")) torn.push(`${path} (${size} B)`);
  }
  if (
    !check(
      `${label}: config and workspace files whole (old or new, never empty or torn)`,
      torn.length === 0,
      torn.join(", "),
    )
  )
    counts.tornFiles += torn.length;
}

async function bootAfterCut(m: Machine, label: string): Promise<void> {
  const bootStarted = Date.now();
  await m.boot();
  try {
    await m.waitForSsh(600_000);
    await waitForActive(m, 600_000);
    const ms = Date.now() - bootStarted;
    counts.bootToActiveMs.push(ms);
    const state = await serviceState(m);
    check(
      `${label}: clawbox started unattended after the cut`,
      state.ActiveState === "active",
      `${Math.round(ms / 1000)} s after power-on; NRestarts=${state.NRestarts}`,
    );
  } catch (error) {
    counts.unattendedFailures += 1;
    check(`${label}: clawbox started unattended after the cut`, false, String(error));
    throw error;
  }
  await afterBootChecks(m, label);
}

async function powerCuts(m: Machine): Promise<void> {
  traffic.startLoop(rate);
  const plan: ("traffic" | "boot" | "fresh")[] = [];
  for (let i = 0; i < cuts; i++)
    plan.push(i === 1 ? "fresh" : i === 2 || i % 5 === 4 ? "boot" : "traffic");
  if (cuts === 1) plan[0] = "traffic";
  for (const [i, kind] of plan.entries()) {
    const label = `power cut ${i + 1}/${cuts} (${kind})`;
    let delayMs: number;
    if (kind === "boot") {
      // At a random point while the machine boots (kernel, fsck, systemd, service start).
      await m.powerCut();
      await m.boot();
      delayMs = 5000 + Math.random() * 60_000;
    } else if (kind === "fresh") {
      // Seconds after a first start on empty state (database and workspace just created).
      await m.sshOk(
        "systemctl stop clawbox; rm -rf /var/lib/clawbox/clawbox.db* /var/lib/clawbox/workspace; systemctl start clawbox",
        { timeoutMs: 600_000 },
      );
      delayMs = 1000 + Math.random() * 15_000;
    } else {
      delayMs = 2000 + Math.random() * 40_000;
    }
    await Bun.sleep(delayMs);
    await m.powerCut();
    counts.cuts += 1;
    log(`${label}: qemu SIGKILLed ${Math.round(delayMs / 100) / 10} s in`);
    await bootAfterCut(m, label);
  }
  await traffic.stop();
  // Everything acknowledged gets its reply (outbox retries back off up to 60 s).
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline && traffic.outstanding() > 0) await Bun.sleep(2000);
  const report = traffic.report();
  lastReport = report;
  log(`traffic: ${JSON.stringify(report.byChannel)}`);
  check(
    `every acknowledged message answered (${report.acknowledged} acknowledged of ${report.sent}; lost ${report.lost})`,
    report.lost === 0,
    report.lostNonces.slice(0, 10).join(" "),
  );
  check(
    `no message answered twice (duplicates ${report.duplicates})`,
    report.duplicates === 0,
    report.duplicateNonces.slice(0, 10).join(" "),
  );
  mkdirSync(work, { recursive: true });
}
