/**
 * Pairing on both WeCom channels, end to end in one process: the real channel service
 * and agent (scripted model) against the fake long-connection server (intelligent bot)
 * and the fake WeCom API with signed, encrypted callbacks (self-built app). `/pair` in a
 * direct chat gets a code without an agent run (the bot opens no stream for it); the
 * approval adds `wecom:<userid>` and tells the person on the channel they asked from;
 * their next turn runs with the owner tools.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ChannelService,
  createChannelService,
  tellRequester,
} from "../../src/channels/index.ts";
import { configSchema } from "../../src/config/index.ts";
import { approvedText, approvePairing, PairingRequests } from "../../src/pairing/index.ts";
import { createApp } from "../../src/server/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider, type FakeProvider } from "../fakes/fake-provider.ts";
import { type FakeWeComApi, startFakeWeComApi } from "../fakes/wecom-api-server.ts";
import { type FakeBotServer, startFakeBotServer } from "../fakes/wecom-bot-server.ts";
import { postMessage, SAMPLE_SECRETS, wecomAppConfig } from "../fakes/wecom-callback-sender.ts";

const BOT = { botId: "aibot-home", secret: "bot-secret-123456" };
const APP = SAMPLE_SECRETS;
const CORP_SECRET = "corp-secret-for-tests";

let harness: Harness | undefined;
let service: ChannelService | undefined;
let bot: FakeBotServer | undefined;
let api: FakeWeComApi | undefined;
let server: ReturnType<typeof Bun.serve> | undefined;
let dir: string | undefined;

afterEach(async () => {
  await server?.stop(true);
  await service?.close();
  await harness?.close();
  await bot?.close();
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = service = harness = bot = api = dir = undefined;
});

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A direct text message from lisi, as the long connection delivers it. */
const botText = (msgid: string, content: string) => ({
  msgid,
  aibotid: BOT.botId,
  chattype: "single",
  from: { userid: "lisi" },
  create_time: Math.floor(Date.now() / 1000),
  msgtype: "text",
  text: { content },
});

const codeIn = (text: string) => /code is ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(text)?.[1] ?? "";

async function start(): Promise<{ model: FakeProvider; url: string; configFile: string }> {
  bot = startFakeBotServer(BOT);
  api = startFakeWeComApi({ corpId: APP.corpId, corpSecret: CORP_SECRET });
  const model = createFakeProvider({ script: () => ({ text: "hello" }) });
  const channels = {
    wecom: {
      bot: { ...BOT, wsUrl: bot.url, pingIntervalMs: 200 },
      app: wecomAppConfig(APP, CORP_SECRET, api.url),
    },
  };
  harness = createHarness({ providers: { fake: model }, engine: "real", config: { channels } });
  dir = mkdtempSync(join(tmpdir(), "clawbox-wecom-pair-"));
  const configFile = join(dir, "clawbox.json");
  writeFileSync(configFile, JSON.stringify({ channels }));
  service = createChannelService({
    db: harness.store.db,
    config: harness.config,
    agent: harness.agent,
    logger: silentLogger,
    workspace: harness.paths.workspace,
  });
  await service.start();
  const running = service;
  const app = createApp({
    backend: harness.agent,
    version: "test",
    startedAt: Date.now(),
    dbHealth: () => "ok",
    logger: silentLogger,
    sessions: createSessionResolver((harness as Harness).config.agent),
    channels: { status: () => running.status(), webhook: (id, r) => running.webhook(id, r) },
  });
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
  const fakeBot = bot;
  await fakeBot.waitFor((frames) => frames.some((f) => f.cmd === "aibot_subscribe"));
  await until(
    () => service?.status().find((s) => s.channel === "wecom-bot")?.state === "connected",
    "the bot connected",
  );
  return { model, url: `http://127.0.0.1:${server.port}/channels/wecom/app`, configFile };
}

/** Approves `code` as the console or the CLI would, with the new owners applied live. */
async function approve(code: string, configFile: string) {
  const h = harness as Harness;
  const request = await approvePairing(
    new PairingRequests(h.store.db),
    { file: configFile, env: {} },
    code,
  );
  h.config.agent.owners = configSchema.parse(
    JSON.parse(await Bun.file(configFile).text()),
  ).agent.owners;
  // Stored in the outbox; the service's worker sends it (it polls every second).
  tellRequester(h.store.db, h.config.channels, request, approvedText());
  return request;
}

describe("pairing on WeCom", () => {
  it("the intelligent bot: a code without an agent run or an open stream, then the approval told on the bot", async () => {
    const { model, configFile } = await start();
    const fakeBot = bot as FakeBotServer;
    fakeBot.pushMessage(botText("m-pair-1", "/pair"));
    await fakeBot.waitFor((frames) => frames.some((f) => f.cmd === "aibot_send_msg"));
    const sent = fakeBot.received.filter((f) => f.cmd === "aibot_send_msg");
    const content = JSON.stringify(sent[0]?.body?.markdown ?? "");
    expect(sent[0]?.body?.chatid).toBe("lisi");
    const code = codeIn(content);
    expect(code).not.toBe("");
    expect(fakeBot.received.filter((f) => f.cmd === "aibot_respond_msg")).toEqual([]);
    expect(model.requests).toHaveLength(0);
    const request = await approve(code, configFile);
    expect(request.ownerId).toBe("wecom:lisi");
    await fakeBot.waitFor(
      (frames) => frames.filter((f) => f.cmd === "aibot_send_msg").length === 2,
    );
    const told = fakeBot.received.filter((f) => f.cmd === "aibot_send_msg")[1];
    expect(JSON.stringify(told?.body)).toContain("You are now an owner");
    // Their next turn is an owner's.
    fakeBot.pushMessage(botText("m-2", "hi"));
    await until(() => model.requests.length === 1, "the owner's turn");
    const tools = (model.requests[0]?.tools ?? []).map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["exec", "write"]));
  });

  it("the self-built app: a code through message/send, and the approval told there", async () => {
    const { model, url, configFile } = await start();
    const fakeApi = api as FakeWeComApi;
    const post = await postMessage(url, APP, {
      fromUser: "wangwu",
      msgId: "7300000099",
      msgType: "text",
      content: "/pair",
    });
    expect(post.status).toBe(200);
    await until(() => fakeApi.sent.length === 1, "the code on message/send");
    expect(fakeApi.sent[0]?.touser).toBe("wangwu");
    const code = codeIn(fakeApi.sent[0]?.content ?? "");
    expect(code).not.toBe("");
    expect(model.requests).toHaveLength(0);
    const request = await approve(code, configFile);
    expect(request).toMatchObject({ ownerId: "wecom:wangwu", channel: "wecom-app" });
    await until(() => fakeApi.sent.length === 2, "the approval on message/send");
    expect(fakeApi.sent[1]).toMatchObject({ touser: "wangwu" });
    expect(fakeApi.sent[1]?.content).toContain("You are now an owner");
  });
});
