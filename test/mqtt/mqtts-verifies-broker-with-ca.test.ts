/**
 * `mqtts://` with `mqtt.ca`: the bridge connects to a real mosquitto TLS listener whose
 * certificate is signed by a throwaway CA (made here with the openssl CLI), and refuses
 * the same broker when it is not told the CA.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMqttBridge, type MqttBridge } from "../../src/mqtt/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createHarness } from "../agent/agent-harness.ts";
import { MOSQUITTO, type Mosquitto, startMosquitto } from "../support/mosquitto.ts";

const OPENSSL = "/usr/bin/openssl";
const missing = !MOSQUITTO ? "mosquitto" : !existsSync(OPENSSL) ? "openssl" : undefined;
if (missing) console.warn(`skipping the mqtts test: ${missing} is not installed`);

function openssl(args: string[]): void {
  const run = spawnSync(OPENSSL, args, { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${run.stderr}`);
}

/**
 * A server certificate for 127.0.0.1 signed by the CA in `dir` (made on first use).
 * `notBefore` (YYYYMMDDHHMMSSZ) dates it in the future, as a box whose clock is behind
 * sees it. Files are named after `name`, so one CA can sign several.
 */
function makeCertificates(dir: string, name = "server", notBefore?: string) {
  const f = (file: string) => join(dir, file);
  if (!existsSync(f("ca.pem"))) {
    writeFileSync(f("san.ext"), "subjectAltName=IP:127.0.0.1\n");
    writeFileSync(f("index.txt"), "");
    writeFileSync(f("serial"), "01\n");
    writeFileSync(
      f("ca.cnf"),
      `[ca]\ndefault_ca=d\n[d]\ndatabase=${f("index.txt")}\nnew_certs_dir=${dir}\nserial=${f("serial")}\ndefault_md=sha256\nunique_subject=no\npolicy=p\n[p]\ncommonName=supplied\n`,
    );
    openssl([
      "req",
      "-x509",
      ...subject("test-ca"),
      "-days",
      "2",
      "-keyout",
      f("ca.key"),
      "-out",
      f("ca.pem"),
    ]);
  }
  openssl(["req", ...subject("127.0.0.1"), "-keyout", f(`${name}.key`), "-out", f(`${name}.csr`)]);
  const validity = notBefore
    ? ["-startdate", notBefore, "-enddate", "21000101000000Z"]
    : ["-days", "2"];
  openssl([
    "ca",
    "-batch",
    "-config",
    f("ca.cnf"),
    "-cert",
    f("ca.pem"),
    "-keyfile",
    f("ca.key"),
    "-in",
    f(`${name}.csr`),
    "-out",
    f(`${name}.pem`),
    "-extfile",
    f("san.ext"),
    ...validity,
  ]);
  // mosquitto started as root reads its files as the user "mosquitto".
  chmodSync(dir, 0o755);
  for (const file of ["ca.pem", `${name}.pem`, `${name}.key`]) chmodSync(f(file), 0o644);
  return { cafile: f("ca.pem"), certfile: f(`${name}.pem`), keyfile: f(`${name}.key`) };
}

const subject = (cn: string) => ["-nodes", "-subj", `/CN=${cn}`, "-newkey", "rsa:2048"];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(missing !== undefined)("mqtts:// with a CA file", () => {
  async function bridgeFor(broker: Mosquitto, ca?: string): Promise<MqttBridge> {
    const harness = createHarness({
      config: { mqtt: { enabled: true, url: broker.url, nodeId: "tlsbox", ...(ca ? { ca } : {}) } },
    });
    cleanups.push(() => harness.close());
    const bridge = createMqttBridge({
      config: harness.config,
      agent: harness.agent,
      logger: silentLogger,
      version: "1.0.0",
      backoff: { initialMs: 100, maxMs: 200 },
    });
    cleanups.push(() => bridge.close());
    await bridge.start();
    return bridge;
  }

  it("connects when told the CA and refuses an unknown certificate otherwise", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-tls-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const files = makeCertificates(dir);
    const broker = await startMosquitto(files);
    cleanups.push(() => broker.stop());
    expect(broker.url).toMatch(/^mqtts:/);

    const trusted = await bridgeFor(broker, files.cafile);
    await waitUntil(() => trusted.status().state === "connected");

    const untrusted = await bridgeFor(broker);
    await waitUntil(() => untrusted.status().lastError !== undefined);
    expect(untrusted.status().state).not.toBe("connected");
    expect(untrusted.status().lastError).toMatch(/certificate/i);
  });

  it("keeps retrying while the broker's certificate is not yet valid, and connects once it is (no RTC, clock behind)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-tls-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const future = makeCertificates(dir, "future", "20991231000000Z");
    let broker = await startMosquitto(future);
    const port = broker.port;
    const bridge = await bridgeFor(broker, future.cafile);
    await waitUntil(() => /not yet valid/i.test(bridge.status().lastError ?? ""));
    expect(bridge.status().state).not.toBe("connected");
    await broker.stop();

    // The same broker once the box's clock is right: now inside the certificate's validity.
    broker = await startMosquitto(makeCertificates(dir, "current"), port);
    cleanups.push(() => broker.stop());
    await waitUntil(() => bridge.status().state === "connected", 20_000);
  });
});
