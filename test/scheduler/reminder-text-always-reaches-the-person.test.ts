/**
 * Issue 38 item 5: a reminder's own text always reaches the person. A small model once
 * answered "check the porch camera" with an unrelated sentence and QQ never got the
 * reminder. Here the real cron runner fires jobs from a real SQLite store, the model is
 * a stub that answers off-topic, stays silent, or fails, and the channel sender stores
 * into the real channel outbox. The run's shown status says "sent" only once every
 * outbox row is accepted, "not sent" when the platform refused it, "queued" before.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatRequest, ChatResult } from "../../src/agent/index.ts";
import { Outbox } from "../../src/channels/index.ts";
import { configSchema } from "../../src/config/index.ts";
import {
  CronStore,
  createCronRunner,
  createDelivery,
  runScheduledTurn,
  shownRunStatus,
} from "../../src/scheduler/index.ts";
import { Store } from "../../src/store/index.ts";
import { silentLogger } from "../../src/system/index.ts";

const OPENID = "0f3a9c27d4e1b8a65c2f7e90d1b3a4c8";
const TEXT = "检查门廊摄像头，看看快递到了没有";

function setUp(answer: (request: ChatRequest) => Omit<ChatResult, "sessionId" | "sessionKey">) {
  const store = Store.open({ path: join(mkdtempSync(join(tmpdir(), "clawbox-remind-")), "c.db") });
  const cron = new CronStore(store.db);
  const outbox = new Outbox(store.db);
  const sent: string[] = [];
  const delivery = createDelivery(silentLogger, {
    outbox: {
      async send(target, text) {
        sent.push(text);
        const { ids } = outbox.enqueue(
          { channel: target.channel, chatType: "direct", peerId: target.peerId },
          [text],
        );
        return { outboxIds: ids };
      },
    },
  });
  const agent = {
    chat: async (request: ChatRequest): Promise<ChatResult> => ({
      sessionId: "s",
      sessionKey: request.sessionKey,
      ...answer(request),
    }),
  };
  const t0 = Date.now();
  cron.insert({
    id: "r1",
    sessionKey: "agent:main:qq:direct:owner",
    text: TEXT,
    schedule: { kind: "at", expr: new Date(t0 + 60_000).toISOString() },
    nextRunAt: t0 + 60_000,
    state: "active",
    origin: { channel: "qq", chatType: "direct", peerId: OPENID, senderId: `qq:${OPENID}` },
    createdAt: t0,
  });
  const fire = async () => {
    const runner = createCronRunner({
      store: cron,
      config: configSchema.parse({}).cron,
      logger: silentLogger,
      runTurn: (turn) => runScheduledTurn(agent, delivery, turn),
      now: () => t0 + 61_000,
    });
    runner.start();
    await runner.close();
    const [run] = cron.runs();
    if (!run) throw new Error("no run");
    return run;
  };
  const shown = () => {
    const [run] = cron.runs();
    if (!run) throw new Error("no run");
    return shownRunStatus(run, (ids) => outbox.statesOf(ids));
  };
  return { store, outbox, sent, fire, shown };
}

/** The platform's answer to the one queued row, as the channel worker records it. */
function settle(outbox: Outbox, kind: "sent" | "failed") {
  const item = outbox.nextDue(["qq"]);
  if (!item || !outbox.claim(item.id)) throw new Error("nothing queued");
  outbox.settle(
    { ...item, attempts: 1 },
    kind === "sent"
      ? { kind: "sent", platformId: "m1" }
      : { kind: "failed", reason: "40034102 user blocked the bot" },
  );
}

describe("a reminder's own text", () => {
  it("leads an off-topic reply; the run names it and says sent only once the platform took it", async () => {
    const box = setUp(() => ({ reply: "今天天气不错。", silent: false }));
    const run = await box.fire();
    expect(box.sent).toEqual([`⏰ ${TEXT}\n\n今天天气不错。`]);
    expect(run.text).toBe(TEXT);
    expect(box.shown()).toEqual({ status: "queued", detail: `queued to qq:direct:${OPENID}` });
    settle(box.outbox, "sent");
    expect(box.shown()).toEqual({ status: "sent", detail: `sent to qq:direct:${OPENID}` });
    box.store.close();
  });

  it("is not repeated when the model's reply already carries it", async () => {
    const box = setUp(() => ({ reply: `提醒：${TEXT}。`, silent: false }));
    await box.fire();
    expect(box.sent).toEqual([`提醒：${TEXT}。`]);
    box.store.close();
  });

  it("goes alone when the model stays silent or fails, and a refused send is 'not sent'", async () => {
    const silent = setUp(() => ({ reply: "", silent: true }));
    await silent.fire();
    expect(silent.sent).toEqual([`⏰ ${TEXT}`]);
    silent.store.close();
    const failing = setUp(() => ({
      reply: "",
      silent: false,
      error: { code: "PROVIDER_NETWORK", message: "the model server did not answer" },
    }));
    const run = await failing.fire();
    expect(failing.sent).toEqual([`⏰ ${TEXT}`]);
    expect(run.status).toBe("ok");
    expect(run.detail).toContain("the model failed: the model server did not answer");
    settle(failing.outbox, "failed");
    expect(failing.shown().status).toBe("not sent");
    expect(failing.shown().detail).toContain("user blocked the bot");
    failing.store.close();
  });

  it("is not sent when the turn was refused (not the owner's session)", async () => {
    const box = setUp(() => ({
      reply: "",
      silent: false,
      error: {
        code: "SESSION_FORBIDDEN",
        message: "scheduled runs happen only in the owner's sessions",
      },
    }));
    const run = await box.fire();
    expect(box.sent).toEqual([]);
    expect(run.status).toBe("failed");
    box.store.close();
  });
});
