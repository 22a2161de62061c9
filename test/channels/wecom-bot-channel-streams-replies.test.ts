/**
 * The WeCom bot channel end to end in one process: the real channel service (inbox,
 * dispatcher, outbox, status in SQLite), the real agent with a scripted model that
 * takes a while to "load" before its first token, and the fake long-connection server
 * over a real loopback WebSocket.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ChannelService, createChannelService } from "../../src/channels/index.ts";
import type { ProviderConfig } from "../../src/config/index.ts";
import type { Provider } from "../../src/providers/index.ts";
import { createProvider } from "../../src/providers/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { createHarness, type Harness } from "../agent/agent-harness.ts";
import { createFakeProvider } from "../fakes/fake-provider.ts";
import {
  type FakeBotServer,
  type ReceivedFrame,
  startFakeBotServer,
} from "../fakes/wecom-bot-server.ts";
import { TINY_PNG } from "../fixtures/tiny-png.ts";
import { HAVE_STORIES, STORIES_MODEL } from "../support/stories-model.ts";

const CREDENTIALS = { botId: "aibot-home", secret: "bot-secret-123456" };
const ANSWER = "The living room light is on now.\n\nAnything else?";

let harness: Harness | undefined;
let service: ChannelService | undefined;
let fake: FakeBotServer | undefined;

afterEach(async () => {
  await service?.close();
  await harness?.close();
  await fake?.close();
  service = undefined;
  harness = undefined;
  fake = undefined;
});

/** Records when `inner` produced its first token; waits `loadMs` first (a cold model). */
function slowStart(inner: Provider, loadMs: number): Provider & { firstTokenAt: number[] } {
  const firstTokenAt: number[] = [];
  return {
    id: inner.id,
    kind: inner.kind,
    model: inner.model,
    contextWindow: () => inner.contextWindow(),
    firstTokenAt,
    async *stream(request) {
      await new Promise((resolve) => setTimeout(resolve, loadMs));
      let first = true;
      for await (const event of inner.stream(request)) {
        if (first && event.type === "text_delta") {
          firstTokenAt.push(Date.now());
          first = false;
        }
        yield event;
      }
    },
  };
}

async function start(options: { loadMs?: number; vision?: boolean; local?: ProviderConfig } = {}) {
  const server = startFakeBotServer(CREDENTIALS);
  fake = server;
  const inner = createFakeProvider({
    script: () => ({ text: ANSWER, chunkSize: 6, delayMs: 15 }),
  });
  const model = options.local
    ? slowStart(createProvider("fake", options.local), 0)
    : slowStart(inner, options.loadMs ?? 1_500);
  harness = createHarness({
    providers: { fake: model },
    engine: "real",
    config: {
      channels: {
        wecom: { bot: { ...CREDENTIALS, wsUrl: server.url, pingIntervalMs: 200 } },
      },
    },
  });
  service = createChannelService({
    db: harness.store.db,
    config: harness.config,
    agent: harness.agent,
    logger: silentLogger,
    workspace: harness.paths.workspace,
    vision: options.vision ?? false,
  });
  await service.start();
  await server.waitFor((frames) => frames.some((f) => f.cmd === "aibot_subscribe"));
  await until(() => stateOf() === "connected", "connected");
  return { server, model, inner };
}

function stateOf(): string | undefined {
  return service?.status().find((s) => s.channel === "wecom-bot")?.state;
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const streamOf = (frame: ReceivedFrame) =>
  frame.body?.stream as { id: string; finish: boolean; content: string };

function textMessage(msgid: string, content: string, extra: Record<string, unknown> = {}) {
  return {
    msgid,
    aibotid: CREDENTIALS.botId,
    chattype: "single",
    from: { userid: "zhangsan" },
    create_time: Math.floor(Date.now() / 1000),
    msgtype: "text",
    text: { content },
    ...extra,
  };
}

describe("WeCom bot channel", () => {
  it("opens the stream before the model's first token and finishes with the full text", async () => {
    const { server, model } = await start();
    const pushedAt = Date.now();
    const reqId = server.pushMessage(textMessage("msg-1", "turn on the light"));
    await server.waitFor((frames) =>
      frames.some((f) => f.cmd === "aibot_respond_msg" && streamOf(f).finish),
    );
    const responds = server.received.filter((f) => f.cmd === "aibot_respond_msg");
    const first = responds[0];
    const last = responds.at(-1);
    if (!first || !last) throw new Error("no stream frames");
    expect(streamOf(first).finish).toBe(false);
    // Ordering, not speed: the first frame was on the wire before the model produced anything.
    expect(model.firstTokenAt[0]).toBeDefined();
    expect(first.at).toBeLessThan(model.firstTokenAt[0] ?? 0);
    expect(first.at).toBeGreaterThanOrEqual(pushedAt);
    expect(streamOf(last)).toMatchObject({ finish: true, content: ANSWER });
    expect(responds.filter((f) => streamOf(f).finish)).toHaveLength(1);
    expect(new Set(responds.map((f) => f.headers.req_id))).toEqual(new Set([reqId]));
    expect(new Set(responds.map((f) => streamOf(f).id)).size).toBe(1);
    await server.waitFor((frames) => frames.filter((f) => f.cmd === "ping").length >= 2);
  });

  it("answers a message pushed twice once", async () => {
    const { server, inner } = await start({ loadMs: 0 });
    server.pushMessage(textMessage("msg-dup", "hello"));
    server.pushMessage(textMessage("msg-dup", "hello"));
    await server.waitFor((frames) =>
      frames.some((f) => f.cmd === "aibot_respond_msg" && streamOf(f).finish),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(inner.requests).toHaveLength(1);
    const finals = server.received.filter(
      (f) => f.cmd === "aibot_respond_msg" && streamOf(f).finish,
    );
    expect(finals).toHaveLength(1);
  });

  it("reads group, voice and mixed messages, decrypting the image with the message's own key", async () => {
    const { server, inner } = await start({ loadMs: 0, vision: true });
    const media = server.addMedia(TINY_PNG);
    server.pushMessage({
      ...textMessage("msg-mixed", ""),
      chattype: "group",
      chatid: "group-kitchen",
      msgtype: "mixed",
      text: undefined,
      mixed: {
        msg_item: [
          { msgtype: "text", text: { content: "what is this?" } },
          { msgtype: "image", image: { url: media.url, aeskey: media.aeskey } },
        ],
      },
    });
    server.pushMessage({
      ...textMessage("msg-voice", ""),
      msgtype: "voice",
      text: undefined,
      voice: { content: "打开客厅的灯" },
    });
    await until(() => inner.requests.length === 2, "two model calls");
    const seen = inner.requests.map((r) => JSON.stringify(r.messages.at(-1)));
    const mixed = seen.find((s) => s.includes("what is this?")) ?? "";
    expect(mixed).toContain('"type":"image"');
    const groupTurn = inner.requests.find((r) => JSON.stringify(r).includes("what is this?"));
    expect(JSON.stringify(groupTurn)).toContain("group-kitchen");
    expect(seen.some((s) => s.includes("[voice message] 打开客厅的灯"))).toBe(true);
    await server.waitFor(
      (frames) =>
        frames.filter((f) => f.cmd === "aibot_respond_msg" && streamOf(f).finish).length === 2,
    );
  });

  it("sends proactive messages to the chat with aibot_send_msg", async () => {
    const { server } = await start({ loadMs: 0 });
    service?.deliver(
      { channel: "wecom-bot", chatType: "direct", peerId: "zhangsan" },
      "Reminder: water the plants",
    );
    await server.waitFor((frames) => frames.some((f) => f.cmd === "aibot_send_msg"));
    const sent = server.received.find((f) => f.cmd === "aibot_send_msg");
    expect(sent?.body).toEqual({
      chatid: "zhangsan",
      msgtype: "markdown",
      markdown: { content: "Reminder: water the plants" },
    });
  });

  it("reconnects after a drop and shows a handover in channels status without reconnecting", async () => {
    const { server } = await start({ loadMs: 0 });
    server.drop();
    await until(() => stateOf() === "resuming", "resuming");
    await until(
      () => server.received.filter((f) => f.cmd === "aibot_subscribe").length === 2,
      "resubscribe",
    );
    await until(() => stateOf() === "connected", "connected again");
    server.pushEvent({
      msgid: "ev",
      aibotid: CREDENTIALS.botId,
      msgtype: "event",
      event: { eventtype: "disconnected_event" },
    });
    await until(() => stateOf() === "stopped", "stopped after the handover");
    const status = service?.status().find((s) => s.channel === "wecom-bot");
    expect(status?.reason).toMatch(/another connection for this bot took over/);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(server.connections()).toBe(2);
  });

  it.skipIf(!HAVE_STORIES)(
    "opens the stream before a cold local llama.cpp model produces its first token",
    { timeout: 120_000 },
    async () => {
      const { server, model } = await start({
        local: {
          kind: "local",
          path: STORIES_MODEL,
          threads: 1,
          temperature: 0,
          maxTokens: 200,
        } as ProviderConfig,
      });
      server.pushMessage(textMessage("msg-local", "Once upon a time"));
      await server.waitFor(
        (frames) => frames.some((f) => f.cmd === "aibot_respond_msg" && streamOf(f).finish),
        110_000,
      );
      const responds = server.received.filter((f) => f.cmd === "aibot_respond_msg");
      const first = responds[0];
      if (!first) throw new Error("no stream frames");
      expect(streamOf(first).finish).toBe(false);
      expect(model.firstTokenAt[0]).toBeDefined();
      expect(first.at).toBeLessThan(model.firstTokenAt[0] ?? 0);
      expect(streamOf(responds.at(-1) ?? first).finish).toBe(true);
    },
  );
});
