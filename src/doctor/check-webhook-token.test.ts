/**
 * Attack 4 of issue 37, the owner's side: a webhook channel means a reverse proxy, and
 * without `server.token` a proxy that forwards more than the webhook paths (and adds no
 * forwarding header) gives the internet the local API. `doctor` warns about it.
 */
import { describe, expect, it } from "vitest";
import { configSchema } from "../config/index.ts";
import { checkWebhookToken } from "./check-webhook-token.ts";

const channels = (raw: unknown) => configSchema.parse({ channels: raw }).channels;
const QQ = { appId: "102000001", clientSecret: "qq-secret-0123456789" };
const WECOM_APP = {
  corpId: "ww1",
  corpSecret: "corp-secret",
  agentId: 1000002,
  token: "callback-token-1",
  encodingAESKey: "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
};

describe("doctor: webhooks behind a proxy", () => {
  it("warns when a webhook channel is on without server.token, naming the paths", () => {
    const qq = checkWebhookToken(channels({ qq: { ...QQ, mode: "webhook" } }), undefined);
    expect(qq?.status).toBe("warn");
    expect(qq?.message).toContain("/channels/qq/webhook");
    expect(qq?.fix).toContain("server.token");
    const wecom = checkWebhookToken(channels({ wecom: { app: WECOM_APP } }), undefined);
    expect(wecom?.status).toBe("warn");
    expect(wecom?.message).toContain("/channels/wecom/app");
  });

  it("is fine with a token, and silent without a webhook channel", () => {
    const withToken = checkWebhookToken(
      channels({ qq: { ...QQ, mode: "webhook" } }),
      "proxy-and-guess-token-0123456789",
    );
    expect(withToken?.status).toBe("ok");
    expect(checkWebhookToken(channels({ qq: QQ }), undefined)).toBeUndefined();
    expect(
      checkWebhookToken(channels({ qq: { ...QQ, mode: "webhook", enabled: false } }), undefined),
    ).toBeUndefined();
  });
});
