/**
 * No RTC (issue 18), WeCom: the real `clawbox run` with both WeCom channels, the
 * self-built app (gettoken and message/send over HTTPS) and the intelligent bot (the
 * wss long connection), each behind a TLS front that first presents a certificate
 * dated in the future, as a box whose clock is behind sees it (CA trusted with
 * NODE_EXTRA_CA_CERTS). The bot keeps reconnecting and the app's reply stays in the
 * outbox, both saying the clock is the likely cause; once the certificates are valid
 * (NTP fixed the clock) the bot subscribes and the reply is delivered, once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLOCK_HINT } from "../../src/system/index.ts";
import { writeRunHome } from "../e2e/qq-run-support.ts";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { startFakeWeComApi } from "../fakes/wecom-api-server.ts";
import { startFakeBotServer } from "../fakes/wecom-bot-server.ts";
import {
  type CallbackSecrets,
  postMessage,
  wecomAppConfig,
} from "../fakes/wecom-callback-sender.ts";
import { type RunningService, startService } from "../support/run-service.ts";
import { FUTURE_NOT_BEFORE, HAVE_OPENSSL, makeCertificates } from "../support/test-certificates.ts";
import { startTlsFront } from "../support/tls-front.ts";

if (!HAVE_OPENSSL) console.warn("skipping the WeCom no-RTC test: openssl is not installed");

const SECRETS: CallbackSecrets = {
  token: "QDG6eK",
  encodingAESKey: "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C",
  corpId: "wx5823bf96d3bd56c7",
};
const CORP_SECRET = "corp-secret-for-tests";
const BOT = { botId: "aibot-home", secret: "bot-secret-123456" };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const portOf = (url: string) => Number(new URL(url).port);
const lines = (text: string, needle: string) =>
  text.split("\n").filter((line) => line.includes(needle));

describe.skipIf(!HAVE_OPENSSL)("WeCom channels while the clock is behind (no RTC)", () => {
  it("keeps the bot reconnecting and the app's reply queued while certificates are not yet valid, then subscribes and delivers once", {
    timeout: 90_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawbox-rtc-wecom-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const future = makeCertificates(dir, "future", FUTURE_NOT_BEFORE);
    const api = startFakeWeComApi({ corpId: SECRETS.corpId, corpSecret: CORP_SECRET });
    cleanups.push(() => api.close());
    const bot = startFakeBotServer(BOT);
    cleanups.push(() => bot.close());
    const apiFront = await startTlsFront(portOf(api.url), future);
    cleanups.push(() => apiFront.close());
    const botFront = await startTlsFront(portOf(bot.url), future);
    cleanups.push(() => botFront.close());
    const model = await startFakeOpenAI();
    cleanups.push(() => model.close());
    const home = writeRunHome(model, {
      wecom: {
        app: wecomAppConfig(SECRETS, CORP_SECRET, apiFront.url),
        bot: { ...BOT, wsUrl: `wss://127.0.0.1:${botFront.port}`, pingIntervalMs: 1000 },
      },
    });
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const run: RunningService = await startService(["--port", "0"], {
      CLAWBOX_HOME: home,
      CLAWBOX_CONFIG: "",
      NODE_EXTRA_CA_CERTS: future.cafile,
    });
    cleanups.push(async () => {
      run.child.kill("SIGKILL");
      await run.exited;
    });

    // The bot's long connection: refused at the handshake, retried, the clock named.
    await waitUntil(
      () => lines(run.output(), "WeCom bot:").filter((l) => l.includes(CLOCK_HINT)).length >= 2,
      30_000,
      "two clock warnings from the bot connection",
    );
    expect(bot.connections()).toBe(0);

    // A user writes to the app; the reply cannot go out while the clock is behind.
    const callback = await postMessage(`${run.url}/channels/wecom/app`, SECRETS, {
      fromUser: "zhangsan",
      msgId: "1234567890123456",
      msgType: "text",
      content: "hello box",
    });
    expect(callback.status).toBe(200);
    await waitUntil(
      () =>
        lines(run.output(), "gettoken: cannot reach the API").some((l) => l.includes(CLOCK_HINT)),
      30_000,
      "a clock warning from the app's send",
    );
    expect(api.tokensIssued()).toBe(0);
    expect(api.sent).toHaveLength(0);
    expect(run.child.exitCode).toBeNull();

    // NTP synced: both hosts' certificates are now inside their validity.
    const current = makeCertificates(dir, "current");
    apiFront.useCertificate(current);
    botFront.useCertificate(current);
    await waitUntil(() => api.sent.length >= 1, 30_000, "the app's reply over HTTPS");
    expect(api.sent).toHaveLength(1);
    expect(api.sent[0]?.touser).toBe("zhangsan");
    await bot.waitFor((frames) => frames.some((f) => f.cmd === "aibot_subscribe"), 30_000);
    await run.waitFor("WeCom bot connected", 10_000);
    expect(run.child.exitCode).toBeNull();
  });
});
