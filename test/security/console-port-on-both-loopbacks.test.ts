/**
 * Attack 1 of issue 37 against a real `clawbox run`: another local user (uid 65534
 * through setpriv) holds the console's port on the other loopback family, [::1]:PORT,
 * while the box is on 127.0.0.1:PORT, so a browser's `http://localhost:PORT` lands on
 * the attacker's copy of the login page in the console's own origin. The box must refuse
 * to start beside it (naming the process), hold both families itself while it runs,
 * take systemd's sockets (clawbox.socket keeps the port across restarts), and `doctor`
 * must fail on such a listener.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { asLocalUser, CAN_DROP_TO_LOCAL_USER, runAsLocalUser } from "../support/local-user.ts";
import { type RunningService, startService } from "../support/run-service.ts";
import { CLAWBOX_BIN, spawnCli } from "../support/spawn-cli.ts";

const PYTHON = "/usr/bin/python3";
const HAVE_PYTHON = spawnSync(PYTHON, ["-c", "import socket"]).status === 0;
const SOCKET_ACTIVATE = "/usr/bin/systemd-socket-activate";
const HAVE_ACTIVATE = spawnSync(SOCKET_ACTIVATE, ["--help"]).status === 0;
if (!HAVE_PYTHON) console.warn(`${PYTHON} is absent: the squatter tests are skipped`);
if (!HAVE_ACTIVATE)
  console.warn(`${SOCKET_ACTIVATE} is absent: the socket activation test is skipped`);

/** A listener of the local user on [::1]:PORT (any free port); prints the port. */
const SQUAT = `
import socket, sys, time
s = socket.socket(socket.AF_INET6)
s.bind(("::1", int(sys.argv[1])))
s.listen(4)
print(s.getsockname()[1], flush=True)
time.sleep(120)
`;

/** Tries to bind (SO_REUSEADDR and SO_REUSEPORT set) and prints "bound" or the errno name. */
const TRY_BIND = `
import errno, socket, sys
family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(family)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
    s.listen(1)
    print("bound")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
`;

interface Squatter {
  port: number;
  child: ChildProcess;
}

async function squatOnIpv6Loopback(port = 0, sameUser = false): Promise<Squatter> {
  const command = [PYTHON, "-c", SQUAT, String(port)];
  const [bin, ...args] = (sameUser ? command : asLocalUser(command)) as [string, ...string[]];
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr?.on("data", (d) => {
    err += d;
  });
  const port0 = await new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      out += d;
      const match = /^(\d+)\n/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.on("exit", () => reject(new Error(`squatter exited: ${err}`)));
  });
  return { port: port0, child };
}

function homeWith(config: object): string {
  const home = mkdtempSync(join(tmpdir(), "clawbox-port-twin-"));
  writeFileSync(join(home, "clawbox.json"), JSON.stringify(config));
  return home;
}

const homes: string[] = [];
const squatters: ChildProcess[] = [];
afterEach(() => {
  for (const s of squatters.splice(0)) s.kill("SIGKILL");
});
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!HAVE_PYTHON)("the console's port on both loopback families", () => {
  it("refuses to start when another user holds [::1]:PORT, naming the process, and leaves 127.0.0.1:PORT free", async () => {
    const squatter = await squatOnIpv6Loopback();
    squatters.push(squatter.child);
    const home = homeWith({});
    homes.push(home);
    const run = await spawnCli(
      ["run", "--port", String(squatter.port)],
      { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" },
      20_000,
    );
    expect(run.code).toBe(2);
    expect(run.stdout).not.toContain("listening on");
    expect(run.stderr).toContain(`cannot listen on [::1]:${squatter.port}`);
    expect(run.stderr).toMatch(/pid \d+ \(python3\)/);
    if (CAN_DROP_TO_LOCAL_USER) expect(run.stderr).toContain("uid 65534");
    // The half it did bind is given back: nothing of the box stays on 127.0.0.1.
    const probe = await runAsLocalUser([
      PYTHON,
      "-c",
      TRY_BIND,
      "127.0.0.1",
      String(squatter.port),
    ]);
    expect(probe.stdout.trim()).toBe("bound");
  }, 60_000);

  it("`doctor` fails while another user listens on the twin and names it", async () => {
    const squatter = await squatOnIpv6Loopback();
    squatters.push(squatter.child);
    const home = homeWith({ server: { port: squatter.port } });
    homes.push(home);
    const run = await spawnCli(["doctor"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
    const line = run.stdout.split("\n").find((l) => l.includes("console port")) ?? "";
    expect(line).toMatch(/^fail/);
    expect(line).toContain(`[::1]:${squatter.port}`);
    expect(line).toContain("python3");
    expect(run.code).toBe(1);
  }, 60_000);

  it("`doctor` fails on a listener of the service's own user that is not the box", async () => {
    const squatter = await squatOnIpv6Loopback(0, true);
    squatters.push(squatter.child);
    const home = homeWith({ server: { port: squatter.port } });
    homes.push(home);
    const run = await spawnCli(["doctor"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
    const line = run.stdout.split("\n").find((l) => l.includes("console port")) ?? "";
    expect(line).toMatch(/^fail.*python3/);
  }, 60_000);

  describe("while the box runs on 127.0.0.1", () => {
    let home: string;
    let box: RunningService;
    let port: number;

    beforeAll(async () => {
      home = homeWith({});
      homes.push(home);
      chmodSync(home, 0o700);
      box = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
      port = Number(new URL(box.url).port);
    }, 60_000);
    afterAll(async () => {
      box?.child.kill("SIGTERM");
      await box?.exited;
    });

    it("prints only the 127.0.0.1 link and holds [::1] too", () => {
      expect(box.url).toBe(`http://127.0.0.1:${port}`);
      expect(box.output()).not.toContain("localhost");
      expect(box.output()).toContain(`(also http://[::1]:${port})`);
    });

    it("lets nobody else bind [::1]:PORT or 127.0.0.1:PORT, even with SO_REUSEPORT", async () => {
      for (const address of ["::1", "127.0.0.1"]) {
        const probe = await runAsLocalUser([PYTHON, "-c", TRY_BIND, address, String(port)]);
        expect(probe.stdout.trim(), address).toBe("EADDRINUSE");
      }
      const health = await fetch(`http://[::1]:${port}/health`);
      expect(((await health.json()) as { status: string }).status).toBe("ok");
    });

    it("`doctor` calls the box's own sockets fine", async () => {
      writeFileSync(join(home, "clawbox.json"), JSON.stringify({ server: { port } }));
      const run = await spawnCli(["doctor"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
      const line = run.stdout.split("\n").find((l) => l.includes("console port")) ?? "";
      expect(line).toMatch(/^ok.*held by the box only/);
    }, 60_000);
  });
});

describe.skipIf(!HAVE_ACTIVATE || !HAVE_PYTHON)("under systemd's clawbox.socket", () => {
  /** A port free on both families (the squatter's, once it is gone). */
  async function freePort(): Promise<number> {
    const s = await squatOnIpv6Loopback();
    s.child.kill("SIGKILL");
    await new Promise((r) => s.child.on("exit", r));
    return s.port;
  }

  /** systemd-socket-activate starts the program at the first connection: make one. */
  function knock(port: number): void {
    const tryOnce = (left: number) =>
      void fetch(`http://127.0.0.1:${port}/health`).catch(() => {
        if (left > 0) setTimeout(() => tryOnce(left - 1), 100);
      });
    tryOnce(100);
  }

  it("serves on the sockets systemd passed, both families", async () => {
    const port = await freePort();
    const home = homeWith({});
    homes.push(home);
    knock(port);
    const box = await startService([], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" }, [
      SOCKET_ACTIVATE,
      "-l",
      `127.0.0.1:${port}`,
      "-l",
      `[::1]:${port}`,
      "-E",
      `CLAWBOX_HOME=${home}`,
      "-E",
      "CLAWBOX_CONFIG=",
      CLAWBOX_BIN,
      "run",
    ]);
    try {
      expect(box.url).toBe(`http://127.0.0.1:${port}`);
      for (const base of [`http://127.0.0.1:${port}`, `http://[::1]:${port}`]) {
        const health = await fetch(`${base}/health`);
        expect(health.status).toBe(200);
      }
    } finally {
      box.child.kill("SIGTERM");
      await box.exited;
    }
  }, 60_000);

  it("refuses a socket unit without the loopback twin", async () => {
    const port = await freePort();
    const home = homeWith({});
    homes.push(home);
    const child = spawn(
      SOCKET_ACTIVATE,
      [
        "-l",
        `127.0.0.1:${port}`,
        "-E",
        `CLAWBOX_HOME=${home}`,
        "-E",
        "CLAWBOX_CONFIG=",
        CLAWBOX_BIN,
        "run",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let err = "";
    child.stderr?.on("data", (d) => {
      err += d;
    });
    knock(port);
    const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    expect(code).toBe(2);
    expect(err).toContain(`not [::1]`);
    expect(err).toContain(`ListenStream=[::1]:${port}`);
  }, 60_000);
});
