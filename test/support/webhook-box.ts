/**
 * A real `clawbox run` with both platform webhooks on (QQ in webhook mode, the WeCom
 * self-built app's callback URL), its platforms' APIs played by loopback fakes, and the
 * hostile bodies of issue 23 for each webhook: unsigned, 256 KB, shaped to make a
 * backtracking parser or a parse-before-verify handler spend its time. Shared by
 * test/security/webhook-signature-before-parse.test.ts and the webhook-adversarial bench.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeQqPlatform } from "../fakes/qq-platform.ts";
import { type FakeWeComApi, startFakeWeComApi } from "../fakes/wecom-api-server.ts";
import { type CallbackSecrets, wecomAppConfig } from "../fakes/wecom-callback-sender.ts";
import { type RunningService, startService } from "./run-service.ts";

export const WECOM_SECRETS: CallbackSecrets = {
  corpId: "wwhostile",
  token: "hostile-token",
  encodingAESKey: "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
};

/** The largest body the server accepts (src/server/body-size-limit.ts). */
export const HOSTILE_BYTES = 256 * 1024;

const fill = (unit: string, bytes = HOSTILE_BYTES - 64) =>
  unit.repeat(Math.floor(bytes / unit.length));

export interface HostileRequest {
  webhook: "qq" | "wecom-app";
  name: string;
  path: string;
  init: RequestInit;
}

/** The attacks: each a request a stranger can send without any platform secret. */
export function hostileRequests(): HostileRequest[] {
  const wecomQuery = "?msg_signature=x&timestamp=1&nonce=n";
  const wecom = (name: string, body: string): HostileRequest => ({
    webhook: "wecom-app",
    name,
    path: `/channels/wecom/app${wecomQuery}`,
    init: { method: "POST", headers: { "content-type": "text/xml" }, body },
  });
  const qq = (name: string, body: string, headers: Record<string, string>): HostileRequest => ({
    webhook: "qq",
    name,
    path: "/channels/qq/webhook",
    init: { method: "POST", headers: { "content-type": "application/json", ...headers }, body },
  });
  const forged = { "x-signature-timestamp": "1", "x-signature-ed25519": "ab".repeat(64) };
  return [
    // The reported one: 21,800 × "<a><![CDATA[" (a lazy [\s\S]*? with a backreference).
    wecom("unclosed CDATA", "<a><![CDATA[".repeat(21_800)),
    wecom("unclosed Encrypt", fill("<Encrypt>")),
    wecom(
      "Encrypt with a hostile tail",
      `<xml><Encrypt>${fill("A<![CDATA[", HOSTILE_BYTES - 200)}</xml>`,
    ),
    wecom("nested elements", fill("<a>")),
    qq("deep JSON, no signature", fill("["), {}),
    qq("deep JSON, forged signature", fill("["), forged),
    qq(
      "long string, forged signature",
      `{"op":0,"d":"${fill("\\u00", HOSTILE_BYTES - 100)}"}`,
      forged,
    ),
  ];
}

export interface WebhookBox {
  service: RunningService;
  url: string;
  close(): Promise<void>;
}

export async function startWebhookBox(): Promise<WebhookBox> {
  const home = mkdtempSync(join(tmpdir(), "clawbox-webhooks-"));
  const qq = new FakeQqPlatform().start();
  const api: FakeWeComApi = startFakeWeComApi({
    corpId: WECOM_SECRETS.corpId,
    corpSecret: "hostile-corp-secret",
  });
  writeFileSync(
    join(home, "clawbox.json"),
    JSON.stringify({
      channels: {
        qq: {
          appId: qq.appId,
          clientSecret: qq.clientSecret,
          apiBase: qq.url,
          tokenUrl: qq.tokenUrl,
          mode: "webhook",
        },
        wecom: { app: wecomAppConfig(WECOM_SECRETS, "hostile-corp-secret", api.url) },
      },
    }),
  );
  const service = await startService(["--port", "0"], { CLAWBOX_HOME: home, CLAWBOX_CONFIG: "" });
  // Channels start after READY: wait until both webhooks answer (not 404).
  const deadline = Date.now() + 30_000;
  for (const path of [
    "/channels/qq/webhook",
    "/channels/wecom/app?msg_signature=x&timestamp=1&nonce=n",
  ]) {
    while ((await fetch(`${service.url}${path}`, { method: "POST", body: "" })).status === 404) {
      if (Date.now() > deadline)
        throw new Error(`webhook ${path} never came up:\n${service.output()}`);
      await Bun.sleep(100);
    }
  }
  return {
    service,
    url: service.url,
    async close() {
      service.child.kill("SIGTERM");
      await service.exited;
      await qq.stop();
      await api.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
