/**
 * `mqtts://` with `mqtt.ca`: the bridge connects to a real mosquitto TLS listener whose
 * certificate is signed by a throwaway CA (made here with the openssl CLI), and refuses
 * the same broker when it is not told the CA.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMqttBridge, type MqttBridge } from "../../src/mqtt/index.ts";
import { CLOCK_HINT, silentLogger } from "../../src/system/index.ts";
import { createHarness } from "../agent/agent-harness.ts";
import { MOSQUITTO, type Mosquitto, startMosquitto } from "../support/mosquitto.ts";
import { FUTURE_NOT_BEFORE, HAVE_OPENSSL, makeCertificates } from "../support/test-certificates.ts";

const missing = !MOSQUITTO ? "mosquitto" : !HAVE_OPENSSL ? "openssl" : undefined;
if (missing) console.warn(`skipping the mqtts test: ${missing} is not installed`);

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
    const future = makeCertificates(dir, "future", FUTURE_NOT_BEFORE);
    let broker = await startMosquitto(future);
    const port = broker.port;
    const bridge = await bridgeFor(broker, future.cafile);
    await waitUntil(() => /not yet valid/i.test(bridge.status().lastError ?? ""));
    expect(bridge.status().lastError).toContain(CLOCK_HINT);
    expect(bridge.status().state).not.toBe("connected");
    await broker.stop();

    // The same broker once the box's clock is right: now inside the certificate's validity.
    broker = await startMosquitto(makeCertificates(dir, "current"), port);
    cleanups.push(() => broker.stop());
    await waitUntil(() => bridge.status().state === "connected", 20_000);
  });
});
