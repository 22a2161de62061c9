import { afterEach, describe, expect, it } from "vitest";
import { QQ_INTENTS } from "../../src/channels/qq/qq-gateway.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { type QqRig, startQqRig } from "./qq-service-harness.ts";

let rig: QqRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const connected = (r: QqRig) => r.service.status()[0]?.state === "connected";

describe("QQ gateway", () => {
  it("identifies with the C2C and group intent and answers a C2C and a group @-message once each", async () => {
    rig = await startQqRig();
    const r = rig;
    await waitUntil(() => connected(r), 10_000, "READY");
    const identify = r.platform.connections[0]?.find((f) => f.op === 2);
    const d = identify?.d as { token: string; intents: number; shard: number[] };
    expect(d.token).toMatch(/^QQBot tok-\d+$/);
    expect(d.intents & QQ_INTENTS).toBe(QQ_INTENTS);
    expect(d.shard).toEqual([0, 1]);

    const c2c = r.platform.c2c("USER_A", "hello");
    const group = r.platform.groupAt("GROUP_1", "MEMBER_B", "hi bot");
    await waitUntil(() => r.platform.sent.length >= 2, 10_000, "two replies");
    await new Promise((done) => setTimeout(done, 300));
    expect(r.platform.sent).toHaveLength(2);
    const direct = r.platform.sent.find((m) => m.chatType === "direct");
    const inGroup = r.platform.sent.find((m) => m.chatType === "group");
    expect(direct).toMatchObject({
      peerId: "USER_A",
      body: { msg_id: c2c, msg_seq: 1, msg_type: 0, content: "pong" },
    });
    expect(inGroup).toMatchObject({
      peerId: "GROUP_1",
      body: { msg_id: group, msg_seq: 1, content: "pong" },
    });
    expect(r.harness.store.sessions.byKey("agent:main:qq:direct:USER_A")).toBeDefined();
    expect(r.harness.store.sessions.byKey("agent:main:qq:group:GROUP_1")).toBeDefined();
    const status = r.service.status()[0];
    expect(status?.inbox).toEqual({ answered: 2 });
    expect(status?.outbox).toEqual({ sent: 2 });
  });

  it("resumes after op 7 with the session and the last seq, and does not answer a replayed event twice", async () => {
    rig = await startQqRig();
    const r = rig;
    await waitUntil(() => connected(r), 10_000, "READY");
    const id = r.platform.c2c("USER_A", "first");
    const seq = r.platform.dispatch("FRIEND_ADD", { openid: "USER_Z" });
    await waitUntil(() => r.platform.sent.length === 1, 10_000, "first reply");
    r.platform.sendOp(7);
    await waitUntil(
      () => (r.platform.connections[1] ?? []).some((f) => f.op === 6),
      10_000,
      "resume",
    );
    const resume = r.platform.connections[1]?.find((f) => f.op === 6)?.d as Record<string, unknown>;
    const ready = r.platform.connections[0]?.find((f) => f.op === 2);
    expect(ready).toBeDefined();
    expect(resume.seq).toBe(seq);
    expect(String(resume.session_id)).toMatch(/^session-/);
    expect(r.platform.connections[1]?.some((f) => f.op === 2)).toBe(false);
    await waitUntil(() => connected(r), 10_000, "RESUMED");
    // The platform replays the first message (same id, same seq) on the new connection.
    r.platform.replay(seq - 1);
    r.platform.c2c("USER_A", "first", id);
    r.platform.c2c("USER_A", "second");
    await waitUntil(() => r.platform.sent.length === 2, 10_000, "second reply");
    await new Promise((done) => setTimeout(done, 300));
    expect(r.platform.sent).toHaveLength(2);
    expect(r.fake.requests).toHaveLength(2);
    expect(r.platform.attempts.filter((a) => a.body.msg_id === id)).toHaveLength(1);
  });

  it("identifies afresh after op 9 and survives a malformed frame", async () => {
    rig = await startQqRig();
    const r = rig;
    await waitUntil(() => connected(r), 10_000, "READY");
    r.platform.sendRaw("{not json");
    r.platform.sendRaw(
      JSON.stringify({ op: 0, s: 99, t: "C2C_MESSAGE_CREATE", d: { content: "no id" } }),
    );
    r.platform.sendOp(9, false);
    await waitUntil(
      () => (r.platform.connections[0] ?? []).filter((f) => f.op === 2).length === 2,
      10_000,
      "second identify",
    );
    r.platform.c2c("USER_A", "still there?");
    await waitUntil(() => r.platform.sent.length === 1, 10_000, "reply");
  });

  it("reconnects when heartbeat ACKs stop, and heartbeats carry the last seq", async () => {
    rig = await startQqRig({ heartbeatIntervalMs: 100 });
    const r = rig;
    await waitUntil(() => connected(r), 10_000, "READY");
    const seq = r.platform.dispatch("FRIEND_ADD", { openid: "U" });
    await waitUntil(
      () => (r.platform.connections[0] ?? []).some((f) => f.op === 1 && f.d === seq),
      10_000,
      "heartbeat with the last seq",
    );
    r.platform.ackHeartbeats = false;
    await waitUntil(() => r.platform.connections.length >= 2, 10_000, "reconnect");
    r.platform.ackHeartbeats = true;
    await waitUntil(
      () => (r.platform.connections[1] ?? []).some((f) => f.op === 6),
      10_000,
      "resume",
    );
  });
});
