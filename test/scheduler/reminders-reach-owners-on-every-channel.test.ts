/**
 * Issue 22: a reminder an owner sets in a chat reaches them on the platform they set it
 * on. The owner asks in a real chat (fake platform servers speaking the platforms' wire
 * protocols over loopback, the real channel service, agent, context engine and SQLite
 * store); the model's scripted `cron` call stores the reminder; the runtime's scheduler
 * fires it two seconds later and its outbox sender hands the reply to the channel, whose
 * worker sends it to the platform. Before the fix a WeCom owner (`wecom:BOSS` on channel
 * `wecom-bot` or `wecom-app`) got nothing: the reminder's origin had no peer to send to.
 * MQTT (Home Assistant as an owner, a real mosquitto) gets a `notify` event; the web
 * console's owner finds it stored in the session.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ChannelService, createChannelService, Outbox } from "../../src/channels/index.ts";
import { showEntry } from "../../src/console/api-sessions.ts";
import { createMqttBridge, type MqttBridge, topicLayout } from "../../src/mqtt/index.ts";
import {
  CronStore,
  createScheduler,
  type Scheduler,
  shownRunStatus,
} from "../../src/scheduler/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider, type FakeProvider } from "../fakes/fake-provider.ts";
import { FakeQqPlatform, waitUntil } from "../fakes/qq-platform.ts";
import { type FakeWeComApi, startFakeWeComApi } from "../fakes/wecom-api-server.ts";
import { type FakeBotServer, startFakeBotServer } from "../fakes/wecom-bot-server.ts";
import {
  type CallbackSecrets,
  postMessage,
  wecomAppConfig,
} from "../fakes/wecom-callback-sender.ts";
import { MOSQUITTO, startMosquitto } from "../support/mosquitto.ts";
import { startProbe } from "../support/mqtt-probe.ts";
import { serveApp } from "../support/serve-app.ts";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const ASK = "remind me in 2 seconds to call mum";
/** The reminder's own text, as the owner asked for it. */
const TEXT = "给妈妈打电话（她的号码在备忘录里）";
/** What a small model said when the reminder fired: unrelated (issue 38). */
const REMINDER = "今天天气不错，适合散步。";
/** What the person gets: the reminder's text first, the model's words after it. */
const DELIVERED = `⏰ ${TEXT}\n\n${REMINDER}`;
const NEWS = "The garage door is still open.";

/** The model: sets the reminder when asked, confirms, and says the reminder when it fires. */
function reminderModel(): FakeProvider {
  return createFakeProvider({
    script: (request) => {
      const last = request.messages.at(-1);
      const text = JSON.stringify(last?.content ?? "");
      if (last?.role === "toolResult") return { text: "Reminder set." };
      if (text.includes("Scheduled reminder")) return { text: REMINDER };
      if (text.includes("[Heartbeat]")) return { text: NEWS };
      if (text.includes("remind me"))
        return {
          toolCalls: [
            { name: "cron", arguments: { action: "add", text: TEXT, at: "in 2 seconds" } },
          ],
        };
      return { text: "ok" };
    },
  });
}

/** A harness whose agent has the runtime scheduler's cron tool; the scheduler runs (as after READY). */
function boxWith(config: Record<string, unknown>): { h: Harness; scheduler: () => Scheduler } {
  let scheduler: Scheduler | undefined;
  const h = createHarness({
    providers: { fake: reminderModel() },
    engine: "real",
    config: { heartbeat: { enabled: false }, ...config },
    tools: ({ store, paths, config }) => {
      scheduler = createScheduler({
        config,
        store,
        workspace: paths.workspace,
        logger: silentLogger,
      });
      return scheduler.tools;
    },
  });
  cleanups.push(() => h.close());
  const made = () => {
    if (!scheduler) throw new Error("no scheduler");
    return scheduler;
  };
  return { h, scheduler: made };
}

async function channelsOf(h: Harness): Promise<ChannelService> {
  const service = createChannelService({
    db: h.store.db,
    config: h.config,
    agent: h.agent,
    logger: silentLogger,
    workspace: h.paths.workspace,
  });
  await service.start();
  cleanups.push(() => service.close());
  return service;
}

/** The one reminder's run as the console and `cron list --runs` show it. */
function shownNow(h: Harness): { status: string; detail: string | undefined } {
  const outbox = new Outbox(h.store.db);
  const [run] = new CronStore(h.store.db).runs();
  if (!run) throw new Error("no run");
  return shownRunStatus(run, (ids) => outbox.statesOf(ids));
}

/** The one reminder's runs, once it has run. */
async function ranOnce(h: Harness): Promise<{ status: string; detail: string | undefined }> {
  const store = new CronStore(h.store.db);
  await waitUntil(() => store.runs().some((r) => r.status !== "running"), 15_000, "the run");
  const [run] = store.runs();
  return { status: run?.status ?? "", detail: run?.detail };
}

describe("a reminder reaches its owner", () => {
  it("on the WeCom bot, as aibot_send_msg to the owner", async () => {
    const credentials = { botId: "aibot-home", secret: "bot-secret-123456" };
    const server: FakeBotServer = startFakeBotServer(credentials);
    cleanups.push(() => server.close());
    const { h, scheduler } = boxWith({
      agent: { owners: ["wecom:BOSS"] },
      channels: { wecom: { bot: { ...credentials, wsUrl: server.url, pingIntervalMs: 200 } } },
    });
    await channelsOf(h);
    scheduler().start(h.agent);
    cleanups.push(() => scheduler().close());
    await server.waitFor((frames) => frames.some((f) => f.cmd === "aibot_subscribe"));
    server.pushMessage({
      msgid: "m-1",
      aibotid: credentials.botId,
      chattype: "single",
      from: { userid: "BOSS" },
      create_time: Math.floor(Date.now() / 1000),
      msgtype: "text",
      text: { content: ASK },
    });
    await server.waitFor(
      (frames) =>
        frames.some((f) => f.cmd === "aibot_send_msg" && JSON.stringify(f.body).includes(REMINDER)),
      15_000,
    );
    const sent = server.received.filter((f) => f.cmd === "aibot_send_msg");
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({ chatid: "BOSS" });
    expect(JSON.stringify(sent[0]?.body)).toContain(JSON.stringify(DELIVERED).slice(1, -1));
    expect(await ranOnce(h)).toEqual({ status: "ok", detail: "queued to wecom-bot:direct:BOSS" });
  });

  it("and so does the heartbeat's news, on the WeCom bot the owner last wrote from", async () => {
    const credentials = { botId: "aibot-home", secret: "bot-secret-123456" };
    const server: FakeBotServer = startFakeBotServer(credentials);
    cleanups.push(() => server.close());
    const { h, scheduler } = boxWith({
      agent: { owners: ["wecom:BOSS"] },
      heartbeat: { enabled: true },
      channels: { wecom: { bot: { ...credentials, wsUrl: server.url, pingIntervalMs: 200 } } },
    });
    writeFileSync(
      join(h.paths.workspace, "HEARTBEAT.md"),
      "# HEARTBEAT\n\n- Is the garage open?\n",
    );
    await channelsOf(h);
    scheduler().start(h.agent);
    cleanups.push(() => scheduler().close());
    await server.waitFor((frames) => frames.some((f) => f.cmd === "aibot_subscribe"));
    server.pushMessage({
      msgid: "m-hb",
      aibotid: credentials.botId,
      chattype: "single",
      from: { userid: "BOSS" },
      create_time: Math.floor(Date.now() / 1000),
      msgtype: "text",
      text: { content: "hello" },
    });
    await server.waitFor((frames) => frames.some((f) => f.cmd === "aibot_respond_msg"));
    await h.agent.idle();
    const beat = await scheduler().heartbeat()?.beat();
    expect(beat).toMatchObject({ status: "ran", outcome: { ok: true } });
    await server.waitFor(
      (frames) =>
        frames.some((f) => f.cmd === "aibot_send_msg" && JSON.stringify(f.body).includes(NEWS)),
      15_000,
    );
    const sent = server.received.filter((f) => f.cmd === "aibot_send_msg");
    expect(sent.map((f) => f.body?.chatid)).toEqual(["BOSS"]);
  });

  it("on the WeCom app, through message/send to the owner", async () => {
    const secrets: CallbackSecrets = {
      token: "QDG6eK",
      encodingAESKey: "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C",
      corpId: "wx5823bf96d3bd56c7",
    };
    const api: FakeWeComApi = startFakeWeComApi({ corpId: secrets.corpId, corpSecret: "cs" });
    cleanups.push(() => api.close());
    const { h, scheduler } = boxWith({
      agent: { owners: ["wecom:BOSS"] },
      channels: { wecom: { app: wecomAppConfig(secrets, "cs", api.url) } },
    });
    const channels = await channelsOf(h);
    scheduler().start(h.agent);
    cleanups.push(() => scheduler().close());
    const { server: http, base } = serveApp({
      backend: h.agent,
      sessions: createSessionResolver(h.config.agent),
      channels: { status: () => channels.status(), webhook: (id, r) => channels.webhook(id, r) },
    });
    cleanups.push(() => http.stop(true));
    const url = `${base}/channels/wecom/app`;
    const response = await postMessage(url, secrets, {
      fromUser: "BOSS",
      msgId: "7300000001",
      msgType: "text",
      content: ASK,
    });
    expect(response.status).toBe(200);
    await waitUntil(() => api.sent.some((m) => m.content === DELIVERED), 15_000, "the reminder");
    expect(api.sent.map((m) => [m.touser, m.content])).toEqual([
      ["BOSS", "Reminder set."],
      ["BOSS", DELIVERED],
    ]);
    expect(await ranOnce(h)).toEqual({ status: "ok", detail: "queued to wecom-app:direct:BOSS" });
  });

  it("on QQ, as an active message (no msg_id) to the owner", async () => {
    const platform = new FakeQqPlatform({}).start();
    cleanups.push(() => platform.stop());
    const { h, scheduler } = boxWith({
      agent: { owners: ["qq:OWNER"] },
      channels: {
        qq: {
          appId: platform.appId,
          clientSecret: platform.clientSecret,
          apiBase: platform.url,
          tokenUrl: platform.tokenUrl,
        },
      },
    });
    const channels = await channelsOf(h);
    scheduler().start(h.agent);
    cleanups.push(() => scheduler().close());
    await waitUntil(() => channels.status()[0]?.state === "connected", 10_000, "READY");
    platform.c2c("OWNER", ASK);
    await waitUntil(
      () => platform.sent.some((m) => JSON.stringify(m.body).includes(REMINDER)),
      15_000,
      "the reminder",
    );
    const reminder = platform.sent.find((m) => JSON.stringify(m.body).includes(REMINDER));
    expect(reminder).toMatchObject({ chatType: "direct", peerId: "OWNER" });
    expect(reminder?.body.content).toBe(DELIVERED);
    expect(reminder?.body.msg_id).toBeUndefined();
    expect(await ranOnce(h)).toEqual({ status: "ok", detail: "queued to qq:direct:OWNER" });
    // The platform accepted it: the run now says "sent" (it said "queued" until then).
    await waitUntil(() => shownNow(h).status === "sent", 10_000, "the run shown as sent");
    expect(shownNow(h)).toEqual({ status: "sent", detail: "sent to qq:direct:OWNER" });
  });

  it.skipIf(!MOSQUITTO)("over MQTT, as a notify event for Home Assistant as an owner", async () => {
    const broker = await startMosquitto();
    cleanups.push(() => broker.stop());
    const { h, scheduler } = boxWith({
      agent: { owners: ["cli", "mqtt:home-assistant"] },
      mqtt: { enabled: true, url: broker.url, nodeId: "remindbox" },
    });
    const topics = topicLayout(h.config.mqtt);
    const probe = await startProbe(broker.url, [`${topics.baseTopic}/#`]);
    cleanups.push(() => probe.close());
    const bridge: MqttBridge = createMqttBridge({
      config: h.config,
      agent: h.agent,
      logger: silentLogger,
      version: "test",
    });
    cleanups.push(() => bridge.close());
    await bridge.start();
    await probe.waitFor((m) => m.topic === topics.availability && m.text === "online");
    // As `clawbox run` wires it: reminders for Home Assistant go to the bridge.
    scheduler().start(h.agent, { mqtt: { send: async (_t, text) => bridge.notify(text) } });
    cleanups.push(() => scheduler().close());
    await probe.publish(topics.prompt, ASK);
    const event = await probe.waitFor(
      (m) => m.topic === topics.event && probe.json(m).event_type === "notify",
      { timeoutMs: 15_000 },
    );
    expect(probe.json(event)).toMatchObject({ event_type: "notify", text: DELIVERED });
    // The broker acknowledged the event: the run says so.
    expect(await ranOnce(h)).toEqual({
      status: "ok",
      detail: "sent to mqtt:direct:home-assistant",
    });
    expect(shownNow(h)).toMatchObject({ status: "sent" });
  });

  it("in the web console, stored in the owner's session where the console shows it", async () => {
    const { h, scheduler } = boxWith({ agent: { owners: ["cli"] } });
    scheduler().start(h.agent);
    cleanups.push(() => scheduler().close());
    const key = "agent:main:web:direct:owner";
    // The console's own turn: channel web, speaking as the first owner.
    const set = await h.agent.chat({
      sessionKey: key,
      text: ASK,
      channel: "web",
      senderId: "cli",
      chatType: "direct",
    });
    expect(set.reply).toBe("Reminder set.");
    expect(await ranOnce(h)).toEqual({ status: "ok", detail: "stored in the web session" });
    const last = h.messages(key).at(-1);
    expect(JSON.stringify(last?.content)).toContain(REMINDER);
    // The console shows the reminder's own text above the model's words.
    const session = h.store.sessions.byKey(key);
    const shown = h.store.transcript
      .all(session?.sessionId ?? "")
      .map(showEntry)
      .filter((e) => e.from === "reminder");
    expect(shown.map((e) => e.text)).toEqual([TEXT]);
    expect(shownNow(h)).toMatchObject({ status: "delivered" });
  });
});
