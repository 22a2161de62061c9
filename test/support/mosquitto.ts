/**
 * Starts a real mosquitto broker (Debian package `mosquitto`) for a test: its own temp
 * config, a free port on 127.0.0.1, no persistence. `MOSQUITTO` is undefined when the
 * binary is absent, so tests can skip with a printed reason.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CANDIDATES = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"];
export const MOSQUITTO = CANDIDATES.find((path) => existsSync(path));

export interface Mosquitto {
  url: string;
  port: number;
  /** Everything mosquitto printed (connections, wills), for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * `tls`: PEM files for a TLS listener (mqtts://); the URL then says mqtts. `fixedPort`:
 * listen there (e.g. to restart a broker where a client is already pointed).
 */
export async function startMosquitto(
  tls?: { cafile: string; certfile: string; keyfile: string },
  fixedPort?: number,
): Promise<Mosquitto> {
  if (!MOSQUITTO) throw new Error("mosquitto is not installed");
  const dir = mkdtempSync(join(tmpdir(), "clawbox-mosquitto-"));
  const port = fixedPort ?? (await freePort());
  const conf = join(dir, "mosquitto.conf");
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      "allow_anonymous true",
      ...(tls
        ? [`cafile ${tls.cafile}`, `certfile ${tls.certfile}`, `keyfile ${tls.keyfile}`]
        : []),
      "persistence false",
      "log_dest stderr",
      "log_type all",
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(MOSQUITTO, ["-c", conf], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const deadline = Date.now() + 10_000;
  while (!(await portOpen(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`mosquitto did not start on 127.0.0.1:${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `${tls ? "mqtts" : "mqtt"}://127.0.0.1:${port}`,
    port,
    log: () => output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
