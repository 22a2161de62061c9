/**
 * No RTC (issue 18): a Pi 4 boots on the image's date until NTP syncs, so the QQ
 * platform's certificate looks "not yet valid". The real `clawbox run` talks to the
 * fake QQ platform through a TLS front (token, OpenAPI and the wss gateway all over
 * TLS, the CA trusted with NODE_EXTRA_CA_CERTS); the front first presents a
 * certificate dated in the future, as a box whose clock is behind sees it. The box must
 * keep retrying with backoff, say the clock is the likely cause, and connect and answer
 * once the certificate is valid (NTP fixed the clock).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLOCK_HINT } from "../../src/system/index.ts";
import { prepareQqRun, type QqRun } from "../e2e/qq-run-support.ts";
import { FakeQqPlatform, waitUntil } from "../fakes/qq-platform.ts";
import { spawnCli } from "../support/spawn-cli.ts";
import { FUTURE_NOT_BEFORE, HAVE_OPENSSL, makeCertificates } from "../support/test-certificates.ts";
import { startTlsFront, type TlsFront } from "../support/tls-front.ts";

if (!HAVE_OPENSSL) console.warn("skipping the QQ no-RTC test: openssl is not installed");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe.skipIf(!HAVE_OPENSSL)("QQ channel while the clock is behind (no RTC)", () => {
  it("retries the token and gateway while the certificate is not yet valid, names the clock, and answers once it is valid", {
    timeout: 90_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-rtc-qq-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const future = makeCertificates(dir, "future", FUTURE_NOT_BEFORE);
    const platform = new FakeQqPlatform().start();
    // The OpenAPI (token, messages) and the gateway are separate hosts on the real platform.
    const front: TlsFront = await startTlsFront(platform.port, future);
    cleanups.push(() => front.close());
    const gatewayFront: TlsFront = await startTlsFront(platform.port, future);
    cleanups.push(() => gatewayFront.close());
    platform.gatewayUrl = `wss://127.0.0.1:${gatewayFront.port}/websocket`;
    const run: QqRun = await prepareQqRun(
      { apiBase: front.url, tokenUrl: `${front.url}/app/getAppAccessToken` },
      { platform, env: { NODE_EXTRA_CA_CERTS: future.cafile } },
    );
    cleanups.push(() => run.close());
    const child = await run.start();

    // Clock behind: every attempt is refused at the TLS handshake, and retried.
    await waitUntil(() => count(run.stderr(), CLOCK_HINT) >= 2, 30_000, "two clock warnings");
    expect(front.refusedHandshakes()).toBeGreaterThanOrEqual(2);
    expect(platform.tokenRequests).toBe(0);
    expect(child.exitCode).toBeNull();
    expect(run.stderr()).toMatch(/certificate is not yet valid/);
    // The owner sees the same in `clawbox channels status`.
    const status = await spawnCli(["channels", "status", "--json"], {
      CLAWBOX_HOME: run.home,
      CLAWBOX_CONFIG: "",
    });
    const [qq] = (JSON.parse(status.stdout) as { channels: { state: string; reason?: string }[] })
      .channels;
    expect(qq?.state).toBe("error");
    expect(qq?.reason).toContain(CLOCK_HINT);

    // NTP synced: the same servers' certificates are now inside their validity. The
    // OpenAPI host first: the token is fetched, but the wss gateway is still refused.
    const current = makeCertificates(dir, "current");
    front.useCertificate(current);
    await waitUntil(() => platform.tokenRequests > 0, 30_000, "the token over HTTPS");
    const warned = count(run.stderr(), CLOCK_HINT);
    await waitUntil(
      () => count(run.stderr(), CLOCK_HINT) > warned,
      30_000,
      "a clock warning for the wss gateway",
    );
    expect(gatewayFront.refusedHandshakes()).toBeGreaterThanOrEqual(1);
    expect(platform.connections).toHaveLength(0);
    gatewayFront.useCertificate(current);
    await waitUntil(
      () => platform.connections.some((c) => c.some((f) => f.op === 2)),
      30_000,
      "the gateway identify over wss",
    );
    const id = platform.c2c("USER_A", "hello after the clock jump");
    await waitUntil(() => platform.sent.length >= 1, 20_000, "the reply over HTTPS");
    expect(platform.sent[0]?.body.msg_id).toBe(id);
    expect(child.exitCode).toBeNull();
  });
});
