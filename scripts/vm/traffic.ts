/**
 * Inbound traffic for a box under test, and the ledger that says whether each message
 * was answered exactly once. Used by the power-cut checks (the box in the arm64 machine)
 * and the soak (the box on this host). Everything the box talks to runs here on
 * 127.0.0.1: the fake QQ platform (gateway + OpenAPI), the fake WeCom API and long-
 * connection server, a real mosquitto, and a model server that answers every user message
 * with `re [n:<nonce>]` — the nonce each inbound message carries, so every reply on every
 * platform names the message it answers.
 *
 * "Acknowledged" is what the platform itself saw, per its protocol:
 * - QQ: a heartbeat (op 1) or resume (op 6) on the connection that received the dispatch
 *   reported a seq at or past it (clawbox advances its seq only after storing);
 * - WeCom app: the callback POST got HTTP 200 (the platform retries 3 times, 5 s apart,
 *   then gives up; so does this sender);
 * - WeCom bot: the box answered the callback's req_id (it opens the stream after storing);
 * - MQTT: the broker's PUBACK to the publisher (QoS 1); the broker keeps it for the box's
 *   session until the box acknowledges it in turn.
 * Every acknowledged message must end with exactly one reply; a message the platform never
 * saw acknowledged may be answered or not (counted apart), but never twice.
 */
import { createHash } from "node:crypto";
import { connectAsync, type MqttClient } from "mqtt";
import { fakeModelsSection } from "../../test/e2e/qq-run-support.ts";
import { openaiText, openaiToolCall, type ScriptedServer } from "../../test/fakes/openai-server.ts";
import { FakeQqPlatform } from "../../test/fakes/qq-platform.ts";
import { startScriptedServer } from "../../test/fakes/scripted-sse-server.ts";
import { type FakeWeComApi, startFakeWeComApi } from "../../test/fakes/wecom-api-server.ts";
import { type FakeBotServer, startFakeBotServer } from "../../test/fakes/wecom-bot-server.ts";
import {
  type CallbackSecrets,
  postMessage,
  wecomAppConfig,
} from "../../test/fakes/wecom-callback-sender.ts";
import { type Mosquitto, startMosquitto } from "../../test/support/mosquitto.ts";

export type TrafficChannel = "qq" | "wecom-app" | "wecom-bot" | "mqtt";
export const CHANNELS: TrafficChannel[] = ["qq", "wecom-app", "wecom-bot", "mqtt"];

const SECRETS: CallbackSecrets = {
  token: "traffictoken",
  encodingAESKey: "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
  corpId: "ww00000000traffic",
};
const CORP_SECRET = "corp-secret-traffic";
const BOT = { botId: "bot-traffic", secret: "bot-secret-traffic" };
const NODE_ID = "box";
/** Distinct senders per channel: sessions stay short however long the run. */
const PEERS = 8;
const NONCE = /\[n:([a-z0-9-]+)\]/;
const MEMORY_WRITE = /\[w:(\d+)\]/;
/** The QQ user listed in agent.owners: its `[w:K]` messages make the model write MEMORY.md. */
const OWNER_OPENID = "openid-owner";

/** Version K of MEMORY.md as the model writes it (≈ 5 KB, so a torn write would show). */
export function memoryVersion(k: number): string {
  const lines = Array.from({ length: 60 }, (_, i) => `- note ${k}.${i}: ${"x".repeat(60)}`);
  return `# Memory\n\nVersion ${k}.\n\n${lines.join("\n")}\n\n(end of version ${k})\n`;
}

interface Sent {
  nonce: string;
  channel: TrafficChannel;
  at: number;
  acked: boolean;
  /** QQ: seq of the dispatch and the gateway connection it went to (-1: none). */
  qq?: { seq: number; connection: number };
  /** WeCom bot: the callback's req_id. */
  reqId?: string;
}

export interface ChannelCounts {
  sent: number;
  acknowledged: number;
  answered: number;
  lost: number;
  duplicates: number;
  unacknowledged: number;
  unacknowledgedAnswered: number;
}

export interface TrafficReport extends ChannelCounts {
  byChannel: Record<TrafficChannel, ChannelCounts>;
  /** Nonces of lost and duplicated messages (for failure messages). */
  lostNonces: string[];
  duplicateNonces: string[];
}

export interface TrafficOptions {
  /** How the box reaches this host: 127.0.0.1 on the host, 10.0.2.2 from the machine. */
  hostFromBox: string;
  /** Every Nth QQ message comes from the owner and has the model write MEMORY.md (0: never). */
  memoryWriteEvery?: number;
}

export class Traffic {
  readonly sent: Sent[] = [];
  private counter = 0;
  private memoryWrites = 0;
  /** sha256 of every MEMORY.md version the model was asked to write. */
  readonly memoryHashes = new Set<string>();
  private loop: { stop: boolean; done: Promise<void> } | undefined;
  private callbackUrl = "";
  private pendingPosts = new Set<Promise<void>>();

  private constructor(
    readonly options: TrafficOptions,
    readonly qq: FakeQqPlatform,
    readonly wecomApi: FakeWeComApi,
    readonly bot: FakeBotServer,
    readonly broker: Mosquitto,
    readonly model: ScriptedServer,
    private readonly publisher: MqttClient,
    private readonly observer: MqttClient,
    private readonly mqttReplies: Map<string, number>,
    private readonly mqttOnline: { seen: boolean },
  ) {}

  static async start(options: TrafficOptions): Promise<Traffic> {
    const qq = new FakeQqPlatform({ heartbeatIntervalMs: 2000 }).start();
    qq.gatewayUrl = `ws://${options.hostFromBox}:${qq.port}/websocket`;
    const wecomApi = startFakeWeComApi({ corpId: SECRETS.corpId, corpSecret: CORP_SECRET });
    const bot = startFakeBotServer(BOT);
    const broker = await startMosquitto();
    const model = await startScriptedServer(
      (headers) => headers.authorization?.replace(/^Bearer\s+/i, ""),
      (request) => modelStep(request.body),
    );
    const publisher = await connectAsync(broker.url, {
      clientId: `traffic-ha-${process.pid}`,
      reconnectPeriod: 1000,
    });
    const observer = await connectAsync(broker.url, {
      clientId: `traffic-observer-${process.pid}`,
      reconnectPeriod: 1000,
    });
    const mqttReplies = new Map<string, number>();
    const mqttOnline = { seen: false };
    const availability = `clawbox/${NODE_ID}/availability`;
    observer.on("message", (topic, payload) => {
      if (topic === availability) {
        if (payload.toString("utf8") === "online") mqttOnline.seen = true;
        return;
      }
      try {
        const event = JSON.parse(payload.toString("utf8")) as { event_type?: string; id?: string };
        if (event.event_type === "reply" && typeof event.id === "string")
          mqttReplies.set(event.id, (mqttReplies.get(event.id) ?? 0) + 1);
      } catch {
        // not an event of ours
      }
    });
    await observer.subscribeAsync([`clawbox/${NODE_ID}/event`, availability], { qos: 1 });
    return new Traffic(
      options,
      qq,
      wecomApi,
      bot,
      broker,
      model,
      publisher,
      observer,
      mqttReplies,
      mqttOnline,
    );
  }

  /** clawbox.json for the box: every channel and the MQTT bridge against these fakes. */
  boxConfig(): Record<string, unknown> {
    const host = this.options.hostFromBox;
    const here = (url: string) => url.replace("127.0.0.1", host);
    return {
      models: fakeModelsSection(here(this.model.url)),
      agent: { owners: [`qq:${OWNER_OPENID}`] },
      memory: { enabled: false },
      channels: {
        qq: {
          appId: this.qq.appId,
          clientSecret: this.qq.clientSecret,
          apiBase: here(this.qq.url),
          tokenUrl: here(this.qq.tokenUrl),
        },
        wecom: {
          app: wecomAppConfig(SECRETS, CORP_SECRET, here(this.wecomApi.url)),
          bot: { ...BOT, wsUrl: here(this.bot.url) },
        },
      },
      mqtt: { enabled: true, url: here(this.broker.url), nodeId: NODE_ID },
    };
  }

  /** Where the platform POSTs WeCom callbacks (the box's HTTP port as this host sees it). */
  setCallbackBase(base: string): void {
    this.callbackUrl = `${base}/channels/wecom/app`;
  }

  /** Sends one message on `channel`; returns its nonce. */
  send(channel: TrafficChannel): string {
    this.counter += 1;
    const nonce = `${channel.replace("wecom-", "w")}-${this.counter}-${Math.random().toString(36).slice(2, 7)}`;
    const peer = `u${this.counter % PEERS}`;
    let text = `please answer [n:${nonce}]`;
    const every = this.options.memoryWriteEvery ?? 0;
    const ownerWrites = channel === "qq" && every > 0 && this.counter % every === 0;
    if (ownerWrites) {
      this.memoryWrites += 1;
      this.memoryHashes.add(
        createHash("sha256").update(memoryVersion(this.memoryWrites)).digest("hex"),
      );
      text = `note this in MEMORY.md [w:${this.memoryWrites}] [n:${nonce}]`;
    }
    const entry: Sent = { nonce, channel, at: Date.now(), acked: false };
    this.sent.push(entry);
    if (channel === "qq") {
      const connection = this.qq.connected ? this.qq.connections.length - 1 : -1;
      const id = `msg-${nonce}`;
      this.qq.c2c(ownerWrites ? OWNER_OPENID : `openid-${peer}`, text, id);
      entry.qq = { seq: this.lastQqSeq(), connection };
    } else if (channel === "wecom-bot") {
      entry.reqId = this.bot.pushMessage({
        msgid: `bot-${nonce}`,
        aibotid: BOT.botId,
        chattype: "single",
        from: { userid: `bot-${peer}` },
        create_time: Math.floor(Date.now() / 1000),
        msgtype: "text",
        text: { content: text },
      });
    } else if (channel === "wecom-app") {
      this.track(this.postCallback(entry, `app-${peer}`, text));
    } else {
      const payload = JSON.stringify({ prompt: text, id: nonce, session: `s${peer}` });
      this.track(
        this.publisher.publishAsync(`clawbox/${NODE_ID}/prompt/set`, payload, { qos: 1 }).then(
          () => {
            entry.acked = true;
          },
          () => undefined,
        ),
      );
    }
    return nonce;
  }

  /** Whether the box has been seen on every platform since this traffic started. */
  boxSeen(): boolean {
    const latest = this.qq.connections.at(-1) ?? [];
    return (
      this.qq.connected &&
      latest.some((f) => f.op === 2 || f.op === 6) &&
      this.bot.received.some((f) => f.cmd === "aibot_subscribe") &&
      this.mqttOnline.seen
    );
  }

  /**
   * Waits until the box has connected to every platform (QQ identified, the WeCom bot
   * subscribed, `online` on MQTT, which the box publishes after subscribing), then sends
   * one message on every channel and waits until each is answered (or `timeoutMs`).
   * Before the box has subscribed once, the broker keeps nothing for it (its session does
   * not exist yet), so runs start with this.
   */
  async sendEachAndWait(timeoutMs: number): Promise<{ nonces: string[]; answered: boolean }> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !this.boxSeen()) await Bun.sleep(200);
    const nonces = CHANNELS.map((c) => this.send(c));
    const done = () => nonces.every((n) => (this.replies().get(n) ?? 0) >= 1);
    while (Date.now() < deadline && !done()) await Bun.sleep(500);
    return { nonces, answered: done() };
  }

  /** Sends round-robin across the channels, `perSecond` in all, until `stop()`. */
  startLoop(perSecond: number, channels: TrafficChannel[] = CHANNELS): void {
    const state = { stop: false, done: Promise.resolve() };
    state.done = (async () => {
      let i = 0;
      while (!state.stop) {
        this.send(channels[i % channels.length] as TrafficChannel);
        i += 1;
        await Bun.sleep(1000 / perSecond);
      }
    })();
    this.loop = state;
  }

  async stop(): Promise<void> {
    if (this.loop) {
      this.loop.stop = true;
      await this.loop.done;
      this.loop = undefined;
    }
    await Promise.allSettled([...this.pendingPosts]);
  }

  /** Every platform's replies, counted per nonce. */
  replies(): Map<string, number> {
    const counts = new Map<string, number>();
    const add = (text: unknown) => {
      const nonce = typeof text === "string" ? NONCE.exec(text)?.[1] : undefined;
      if (nonce) counts.set(nonce, (counts.get(nonce) ?? 0) + 1);
    };
    for (const message of this.qq.sent) add(message.body.content);
    for (const message of this.wecomApi.sent) add(message.content);
    for (const frame of this.bot.received) {
      const body = frame.body as
        | { stream?: { finish?: boolean; content?: string }; markdown?: { content?: string } }
        | undefined;
      if (frame.cmd === "aibot_respond_msg" && body?.stream?.finish) add(body.stream.content);
      if (frame.cmd === "aibot_send_msg") add(body?.markdown?.content);
    }
    for (const [id, n] of this.mqttReplies) for (let i = 0; i < n; i++) add(`[n:${id}]`);
    return counts;
  }

  /** Updates what each platform saw acknowledged, then counts. */
  report(): TrafficReport {
    this.updateAcks();
    const replies = this.replies();
    const empty = (): ChannelCounts => ({
      sent: 0,
      acknowledged: 0,
      answered: 0,
      lost: 0,
      duplicates: 0,
      unacknowledged: 0,
      unacknowledgedAnswered: 0,
    });
    const total = empty();
    const byChannel = Object.fromEntries(CHANNELS.map((c) => [c, empty()])) as Record<
      TrafficChannel,
      ChannelCounts
    >;
    const lostNonces: string[] = [];
    const duplicateNonces: string[] = [];
    for (const entry of this.sent) {
      const n = replies.get(entry.nonce) ?? 0;
      for (const counts of [total, byChannel[entry.channel]]) {
        counts.sent += 1;
        if (entry.acked) counts.acknowledged += 1;
        else counts.unacknowledged += 1;
        if (n >= 1 && entry.acked) counts.answered += 1;
        if (n >= 1 && !entry.acked) counts.unacknowledgedAnswered += 1;
        if (n === 0 && entry.acked) counts.lost += 1;
        if (n > 1) counts.duplicates += 1;
      }
      if (n === 0 && entry.acked) lostNonces.push(entry.nonce);
      if (n > 1) duplicateNonces.push(entry.nonce);
    }
    return { ...total, byChannel, lostNonces, duplicateNonces };
  }

  /** Acknowledged messages still without a reply. */
  outstanding(): number {
    const report = this.report();
    return report.lost;
  }

  async close(): Promise<void> {
    await this.stop();
    await this.publisher.endAsync(true).catch(() => undefined);
    await this.observer.endAsync(true).catch(() => undefined);
    await this.qq.stop();
    await this.wecomApi.close();
    await this.bot.close();
    await this.broker.stop();
    await this.model.close();
  }

  private track(promise: Promise<void>): void {
    this.pendingPosts.add(promise);
    void promise.finally(() => this.pendingPosts.delete(promise));
  }

  /** The WeCom platform's callback: retried 3 times, 5 s apart, until an HTTP 200. */
  private async postCallback(entry: Sent, user: string, text: string): Promise<void> {
    const message = {
      fromUser: user,
      msgId: `${Date.now()}${this.counter}`,
      msgType: "text" as const,
      content: text,
    };
    for (let attempt = 0; attempt < 4; attempt++) {
      if (attempt > 0) await Bun.sleep(5000);
      if (!this.callbackUrl) continue;
      try {
        const response = await postMessage(this.callbackUrl, SECRETS, message);
        await response.arrayBuffer();
        if (response.status === 200) {
          entry.acked = true;
          return;
        }
      } catch {
        // refused or reset: the box is down; the platform tries again
      }
    }
  }

  private lastQqSeq(): number {
    return (this.qq as unknown as { seq: number }).seq;
  }

  private updateAcks(): void {
    const connections = this.qq.connections;
    const ackedOn = connections.map((frames) => {
      let max = -1;
      for (const frame of frames) {
        if (frame.op === 1 && typeof frame.d === "number") max = Math.max(max, frame.d);
        if (frame.op === 6) max = Math.max(max, Number((frame.d as { seq?: number })?.seq ?? -1));
      }
      return max;
    });
    const identified = connections.map((frames) => frames.some((f) => f.op === 2));
    const answeredReqIds = new Set(
      this.bot.received.filter((f) => f.cmd === "aibot_respond_msg").map((f) => f.headers.req_id),
    );
    for (const entry of this.sent) {
      if (entry.acked) continue;
      if (entry.qq && entry.qq.connection >= 0) {
        // The dispatch's own connection, then the ones that resumed its session (a new
        // Identify starts a session that never sees it).
        for (let c = entry.qq.connection; c < connections.length; c++) {
          if (c > entry.qq.connection && identified[c]) break;
          if ((ackedOn[c] ?? -1) >= entry.qq.seq) {
            entry.acked = true;
            break;
          }
        }
      }
      if (entry.reqId && answeredReqIds.has(entry.reqId)) entry.acked = true;
    }
  }
}

/**
 * The model: answers the last user message with its nonce; an owner's `[w:K]` message
 * first gets a `write` tool call of MEMORY.md version K, then (with the tool's result) the
 * answer.
 */
function modelStep(body: Record<string, unknown>) {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const last = messages.at(-1);
  const user = [...messages].reverse().find((m) => m.role === "user");
  const content = user?.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((part) => (part as { text?: string }).text ?? "").join(" ")
        : "";
  const nonce = NONCE.exec(text)?.[1] ?? "none";
  const write = MEMORY_WRITE.exec(text)?.[1];
  if (write && last?.role === "user") {
    return openaiToolCall(
      "write",
      JSON.stringify({ path: "MEMORY.md", content: memoryVersion(Number(write)) }),
      { id: `call_${nonce}` },
    );
  }
  return openaiText(`re [n:${nonce}]`, { delayMs: 1 });
}
