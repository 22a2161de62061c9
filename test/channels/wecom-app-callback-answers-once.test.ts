/**
 * The WeCom self-built app channel end to end in one process: the hono app on a real
 * loopback port, the real channel service and agent (scripted model), the fake WeCom
 * API for gettoken / message/send / media/get, and callbacks encrypted and signed the
 * way the platform does it (test/fakes/wecom-callback-sender.ts, written from the docs).
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ChannelService, createChannelService } from "../../src/channels/index.ts";
import { createApp } from "../../src/server/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider, type FakeProvider } from "../fakes/fake-provider.ts";
import { type FakeWeComApi, startFakeWeComApi } from "../fakes/wecom-api-server.ts";
import {
  postMessage,
  SAMPLE_SECRETS,
  verifyUrl,
  wecomAppConfig,
} from "../fakes/wecom-callback-sender.ts";
import { TINY_PNG } from "../fixtures/tiny-png.ts";

const SECRETS = SAMPLE_SECRETS;
const CORP_SECRET = "corp-secret-for-tests";

let harness: Harness | undefined;
let service: ChannelService | undefined;
let api: FakeWeComApi | undefined;
let server: ReturnType<typeof Bun.serve> | undefined;

afterEach(async () => {
  await server?.stop(true);
  await service?.close();
  await harness?.close();
  await api?.close();
  server = undefined;
  service = undefined;
  harness = undefined;
  api = undefined;
});

async function start(
  reply: string | ((text: string) => string) = "Done: the light is on.",
  vision = false,
) {
  const fakeApi = startFakeWeComApi({ corpId: SECRETS.corpId, corpSecret: CORP_SECRET });
  api = fakeApi;
  const model: FakeProvider = createFakeProvider({
    script: (request) => {
      const last = JSON.stringify(request.messages.at(-1) ?? "");
      return { text: typeof reply === "string" ? reply : reply(last) };
    },
  });
  harness = createHarness({
    providers: { fake: model },
    engine: "real",
    config: {
      channels: {
        wecom: {
          app: wecomAppConfig(SECRETS, CORP_SECRET, fakeApi.url),
        },
      },
    },
  });
  const channels = createChannelService({
    db: harness.store.db,
    config: harness.config,
    agent: harness.agent,
    logger: silentLogger,
    workspace: harness.paths.workspace,
    vision,
  });
  service = channels;
  await channels.start();
  const app = createApp({
    backend: harness.agent,
    version: "test",
    startedAt: Date.now(),
    dbHealth: () => "ok",
    logger: silentLogger,
    sessions: createSessionResolver(harness.config.agent),
    channels: { status: () => channels.status(), webhook: (id, r) => channels.webhook(id, r) },
  });
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
  return { url: `http://127.0.0.1:${server.port}/channels/wecom/app`, model, fakeApi };
}

function inboxCount(): number {
  const row = harness?.store.db.query("SELECT COUNT(*) AS n FROM channel_inbox").get() as {
    n: number;
  };
  return row.n;
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("WeCom self-built app channel", () => {
  it("answers URL verification with the decrypted echostr", async () => {
    const { url } = await start();
    const response = await verifyUrl(url, SECRETS, "8846173027360987436");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("8846173027360987436");
  });

  it("refuses a forged signature with 403 and decrypts nothing", async () => {
    const { url, model, fakeApi } = await start();
    const get = await verifyUrl(url, SECRETS, "123", { forgeSignature: true });
    expect(get.status).toBe(403);
    expect(await get.text()).not.toContain("123");
    const post = await postMessage(
      url,
      SECRETS,
      { fromUser: "mallory", msgId: "9001", msgType: "text", content: "hi" },
      { forgeSignature: true },
    );
    expect(post.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(inboxCount()).toBe(0);
    expect(model.requests).toHaveLength(0);
    expect(fakeApi.sent).toHaveLength(0);
  });

  it("answers a text message exactly once through message/send when the platform retries the POST 3 times", async () => {
    const { url, model, fakeApi } = await start();
    const message = {
      fromUser: "zhangsan",
      msgId: "7300000001",
      msgType: "text" as const,
      content: "turn on the light",
    };
    for (let attempt = 0; attempt < 4; attempt++) {
      const response = await postMessage(url, SECRETS, message);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("");
    }
    await until(() => fakeApi.sent.length === 1, "the reply");
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(fakeApi.sent).toEqual([
      {
        touser: "zhangsan",
        msgtype: "text",
        agentid: 1000002,
        content: "Done: the light is on.",
      },
    ]);
    expect(model.requests).toHaveLength(1);
    expect(inboxCount()).toBe(1);
  });

  it("refreshes an expired access token once and retries the send", async () => {
    const { url, fakeApi } = await start();
    await postMessage(url, SECRETS, {
      fromUser: "zhangsan",
      msgId: "1",
      msgType: "text",
      content: "a",
    });
    await until(() => fakeApi.sent.length === 1, "the first reply");
    fakeApi.expireTokens();
    await postMessage(url, SECRETS, {
      fromUser: "zhangsan",
      msgId: "2",
      msgType: "text",
      content: "b",
    });
    await until(() => fakeApi.sent.length === 2, "the second reply");
    expect(fakeApi.tokensIssued()).toBe(2);
  });

  it("splits a long reply at the 2048-byte limit on paragraph boundaries", async () => {
    const paragraph = (n: number) => `第${n}段：${"灯".repeat(500)}`;
    const reply = [1, 2, 3].map(paragraph).join("\n\n");
    const { url, fakeApi } = await start(reply);
    await postMessage(url, SECRETS, {
      fromUser: "lisi",
      msgId: "55",
      msgType: "text",
      content: "long please",
    });
    await until(() => fakeApi.sent.length === 3, "three parts");
    expect(fakeApi.sent.map((m) => m.content)).toEqual([paragraph(1), paragraph(2), paragraph(3)]);
    for (const m of fakeApi.sent) expect(Buffer.byteLength(m.content)).toBeLessThanOrEqual(2048);
    // One access token served all three sends (cached until it expires).
    expect(fakeApi.tokensIssued()).toBe(1);
  });

  it("reads images by MediaId and voice by Recognition; events are logged, not answered", async () => {
    const { url, model, fakeApi } = await start("ok", true);
    fakeApi.addMedia("MEDIA_1", TINY_PNG, "image/png");
    await postMessage(url, SECRETS, {
      fromUser: "zhangsan",
      msgId: "61",
      msgType: "image",
      mediaId: "MEDIA_1",
      picUrl: "http://127.0.0.1:9/unreachable.jpg",
    });
    await postMessage(url, SECRETS, {
      fromUser: "zhangsan",
      msgId: "62",
      msgType: "voice",
      mediaId: "VOICE_1",
      recognition: "打开客厅的灯",
    });
    const event = await postMessage(url, SECRETS, {
      fromUser: "zhangsan",
      msgType: "event",
      event: "enter_agent",
    });
    expect(event.status).toBe(200);
    await until(() => fakeApi.sent.length === 2, "two replies");
    const turns = model.requests.map((r) => JSON.stringify(r.messages.at(-1)));
    expect(turns.some((t) => t.includes('"type":"image"'))).toBe(true);
    expect(turns.some((t) => t.includes("[voice message] 打开客厅的灯"))).toBe(true);
    expect(inboxCount()).toBe(2);
  });
});
