/**
 * The long-connection client against the fake long-connection server over a real
 * loopback WebSocket: subscribe, ping, reconnect after a drop or dead pings, plain
 * words on a refused subscribe, no reconnect after `disconnected_event`, and frames
 * of one req_id sent one at a time, each after the previous one's ack.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  type BotConnection,
  type BotConnectionState,
  createBotConnection,
} from "../../src/channels/wecom/bot-connection.ts";
import { silentLogger } from "../../src/system/index.ts";
import { type FakeBotServer, startFakeBotServer } from "../fakes/wecom-bot-server.ts";

const CREDENTIALS = { botId: "aibot-test", secret: "bot-secret-value" };

let server: FakeBotServer | undefined;
let connection: BotConnection | undefined;

afterEach(async () => {
  connection?.stop();
  await server?.close();
  connection = undefined;
  server = undefined;
});

function startBot(): FakeBotServer {
  server = startFakeBotServer(CREDENTIALS);
  return server;
}

function connect(
  fake: FakeBotServer,
  overrides: { secret?: string; pingIntervalMs?: number } = {},
) {
  const states: BotConnectionState[] = [];
  const messages: string[] = [];
  connection = createBotConnection({
    wsUrl: fake.url,
    botId: CREDENTIALS.botId,
    secret: overrides.secret ?? CREDENTIALS.secret,
    pingIntervalMs: overrides.pingIntervalMs ?? 100,
    authRetryMs: 300,
    logger: silentLogger,
    onMessage: (_reqId, body) => messages.push(body.msgid),
    onState: (state) => states.push(state),
  });
  connection.start();
  return { states, messages };
}

async function until(check: () => boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const subscribes = (fake: FakeBotServer) =>
  fake.received.filter((f) => f.cmd === "aibot_subscribe");

describe("WeCom bot long connection", () => {
  it("subscribes with the bot id and secret, then pings on the interval", async () => {
    const fake = startBot();
    const { states } = connect(fake);
    await fake.waitFor((frames) => frames.filter((f) => f.cmd === "ping").length >= 3);
    expect(subscribes(fake)[0]?.body).toEqual({
      bot_id: CREDENTIALS.botId,
      secret: CREDENTIALS.secret,
    });
    expect(states.map((s) => s.kind)).toContain("connected");
    expect(connection?.connected).toBe(true);
  });

  it("reconnects and subscribes again after the server drops the socket", async () => {
    const fake = startBot();
    const { states } = connect(fake);
    await until(() => connection?.connected === true, "the first subscribe");
    fake.drop();
    await until(() => subscribes(fake).length === 2, "a second subscribe");
    const retry = states.find((s) => s.kind === "reconnecting");
    expect(retry).toMatchObject({ kind: "reconnecting", inMs: 1000 });
    await until(() => connection?.connected === true, "connected again");
    expect(fake.openConnections()).toBe(1);
  });

  it("treats two unanswered pings as a dead socket and reconnects", async () => {
    const fake = startBot();
    connect(fake, { pingIntervalMs: 50 });
    await until(() => connection?.connected === true, "the first subscribe");
    fake.ackPings = false;
    await until(() => subscribes(fake).length === 2, "a resubscribe after dead pings");
  });

  it("stops for good after disconnected_event", async () => {
    const fake = startBot();
    const { states } = connect(fake);
    await until(() => connection?.connected === true, "the first subscribe");
    fake.pushEvent({
      msgid: "ev1",
      create_time: 1,
      aibotid: CREDENTIALS.botId,
      msgtype: "event",
      event: { eventtype: "disconnected_event" },
    });
    await until(() => states.some((s) => s.kind === "handed-over"), "the handover");
    // Longer than the first backoff step (1 s): a reconnect would have happened by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(fake.connections()).toBe(1);
    expect(subscribes(fake)).toHaveLength(1);
    expect(connection?.connected).toBe(false);
  });

  it("reports a refused subscribe in plain words and retries it slowly", async () => {
    const fake = startBot();
    const { states } = connect(fake, { secret: "wrong-secret" });
    await until(() => subscribes(fake).length >= 2, "a retried subscribe");
    const refused = states.find((s) => s.kind === "auth-failed");
    expect(refused).toMatchObject({ kind: "auth-failed", inMs: 300 });
    expect(refused && "reason" in refused ? refused.reason : "").toMatch(
      /refused the bot id or secret \(errcode 40058\); check channels\.wecom\.bot\.botId and secret/,
    );
    expect(JSON.stringify(states)).not.toContain("wrong-secret");
  });

  it("sends frames of one req_id one at a time, each after the previous ack", async () => {
    const fake = startBot();
    connect(fake, { pingIntervalMs: 10_000 });
    await until(() => connection?.connected === true, "the subscribe");
    fake.holdAcks = true;
    const live = connection;
    if (!live) throw new Error("no connection");
    const acks = [1, 2, 3].map((n) =>
      live.request("aibot_respond_msg", "req-1", {
        msgtype: "stream",
        stream: { id: "s", finish: n === 3, content: `part ${n}` },
      }),
    );
    const responds = () => fake.received.filter((f) => f.cmd === "aibot_respond_msg");
    for (let n = 1; n <= 3; n++) {
      await until(() => responds().length === n, `frame ${n}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(responds()).toHaveLength(n);
      expect(fake.releaseAck()).toBe(true);
    }
    await Promise.all(acks);
    expect(
      responds().map((f) => (f.body?.stream as { content?: string } | undefined)?.content),
    ).toEqual(["part 1", "part 2", "part 3"]);
  });
});
