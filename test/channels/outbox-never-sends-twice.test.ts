import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { OutboxItem } from "../../src/channels/channel.ts";
import { MAX_SEND_ATTEMPTS, Outbox, shapeReply } from "../../src/channels/index.ts";
import { qqCapabilities } from "../../src/channels/qq/qq-capabilities.ts";
import {
  WECOM_DUPLICATE_CHECK_SECONDS,
  wecomAppCapabilities,
} from "../../src/channels/wecom/wecom-definitions.ts";
import { Store } from "../../src/store/index.ts";

const target = { channel: "qq", chatType: "direct" as const, peerId: "U1" };
let dir: string | undefined;
let store: Store | undefined;

function open(): { outbox: Outbox; store: Store } {
  dir ??= mkdtempSync(join(tmpdir(), "clawbox-outbox-"));
  store = Store.open({ path: join(dir, "clawbox.db") });
  return { outbox: new Outbox(store.db), store };
}

function state(s: Store, id: number): { state: string; reason: string | null } {
  return s.db.query("SELECT state, reason FROM channel_outbox WHERE id = ?").get(id) as {
    state: string;
    reason: string | null;
  };
}

afterEach(() => {
  store?.close();
  store = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("outbox", () => {
  it("lets a row be claimed for sending only once", () => {
    const { outbox } = open();
    const [id] = outbox.enqueue(target, ["one"], { replyTo: "m1" }).ids;
    expect(outbox.claim(id as number)).toBe(true);
    expect(outbox.claim(id as number)).toBe(false);
    expect(outbox.nextDue(["qq"])).toBeUndefined();
  });

  it("numbers the parts of a reply 1..n per message and stores none past the platform limit", () => {
    const { outbox, store: s } = open();
    outbox.enqueue(target, ["a", "b"], { replyTo: "m1", maxSeq: 5 });
    const more = outbox.enqueue(target, ["c", "d", "e", "f"], { replyTo: "m1", maxSeq: 5 });
    expect(more.dropped).toBe(1);
    const seqs = s.db.query("SELECT seq FROM channel_outbox ORDER BY id").all() as {
      seq: number;
    }[];
    expect(seqs.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it("sends the parts to one peer strictly in order, even when the first waits for a retry", () => {
    const { outbox } = open();
    const [first, second] = outbox.enqueue(target, ["first", "second"], { replyTo: "m1" }).ids;
    const item = outbox.nextDue(["qq"]);
    expect(item?.id).toBe(first);
    if (!item) return;
    outbox.claim(item.id);
    outbox.settle({ ...item, attempts: 1 }, { kind: "retry", reason: "HTTP 500" });
    // The first part waits for its backoff: the second must not overtake it.
    expect(outbox.nextDue(["qq"])).toBeUndefined();
    expect(outbox.nextDue(["qq"], Date.now() + 120_000)?.id).toBe(first);
    expect(second).toBeGreaterThan(first as number);
  });

  it("expires a reply whose window closed instead of sending it", () => {
    const { outbox, store: s } = open();
    const [id] = outbox.enqueue(target, ["late"], { replyTo: "m1", expiresAt: Date.now() - 1 }).ids;
    expect(outbox.expireIfLate(id as number)).toBe(true);
    expect(state(s, id as number)).toEqual({
      state: "expired",
      reason: "reply window closed before it could be sent",
    });
    expect(outbox.nextDue(["qq"])).toBeUndefined();
  });

  it("gives up after the last retry and counts a platform duplicate as sent", () => {
    const { outbox, store: s } = open();
    const [a, b] = outbox
      .enqueue(target, ["a"], { replyTo: "m1" })
      .ids.concat(outbox.enqueue({ ...target, peerId: "U2" }, ["b"], { replyTo: "m2" }).ids);
    outbox.claim(a as number);
    const itemA = { ...target, id: a as number, seq: 1, text: "a", attempts: MAX_SEND_ATTEMPTS };
    expect(outbox.settle(itemA, { kind: "retry", reason: "HTTP 500" })).toBe("failed");
    outbox.claim(b as number);
    const itemB = { ...target, peerId: "U2", id: b as number, seq: 1, text: "b", attempts: 1 };
    expect(outbox.settle(itemB, { kind: "duplicate" })).toBe("sent");
    expect(state(s, b as number)).toEqual({ state: "sent", reason: "platform already had it" });
  });

  it("keeps retrying past the last attempt while the certificate is not yet valid (clock behind, no RTC)", () => {
    const { outbox, store: s } = open();
    const [id] = outbox.enqueue(target, ["a"], { replyTo: "m1" }).ids;
    outbox.claim(id as number);
    const item = {
      ...target,
      id: id as number,
      seq: 1,
      text: "a",
      attempts: MAX_SEND_ATTEMPTS + 3,
    };
    const clock =
      "QQ access token: cannot reach https://bots.qq.com/app/getAppAccessToken: certificate is not yet valid";
    expect(outbox.settle(item, { kind: "retry", reason: clock })).toBe("pending");
    expect(state(s, id as number)).toEqual({ state: "pending", reason: clock });
  });

  it("after a crash mid-send resends only what the platform dedupes, and fails the rest", () => {
    const first = open();
    const [reply] = first.outbox.enqueue(target, ["reply"], { replyTo: "m1" }).ids;
    const [proactive] = first.outbox.enqueue({ ...target, peerId: "U2" }, ["reminder"]).ids;
    first.outbox.claim(reply as number);
    first.outbox.claim(proactive as number);
    first.store.close();
    // Restart.
    const { outbox, store: s } = open();
    expect(outbox.recover("qq", qqCapabilities(false))).toEqual({ resumed: 1, failed: 1 });
    expect(state(s, reply as number).state).toBe("pending");
    expect(state(s, proactive as number)).toEqual({
      state: "failed",
      reason: "interrupted while sending; not resent so it cannot arrive twice",
    });
    const noDedupe = { ...qqCapabilities(false), idempotentReplies: false };
    outbox.claim(reply as number);
    expect(outbox.recover("qq", noDedupe)).toEqual({ resumed: 0, failed: 1 });
  });
});

describe("outbox with the platform's duplicate check (WeCom app)", () => {
  const app = { channel: "wecom-app", chatType: "direct" as const, peerId: "zhangsan" };
  const caps = wecomAppCapabilities(false);
  const window = WECOM_DUPLICATE_CHECK_SECONDS * 1000;

  it("asks for the check unless the same text went to the same person inside the window", () => {
    const { outbox } = open();
    const t0 = 1_000_000_000_000;
    const [done] = outbox.enqueue(app, ["Done."], { replyTo: "m1" }, t0).ids;
    const first = outbox.nextDue(["wecom-app"], t0) as OutboxItem;
    expect(outbox.duplicateCheckFits(first, WECOM_DUPLICATE_CHECK_SECONDS, t0)).toBe(true);
    outbox.claim(done as number);
    outbox.settle(first, { kind: "sent" }, t0);
    outbox.enqueue(app, ["Done."], { replyTo: "m2" }, t0 + 60_000);
    outbox.enqueue({ ...app, peerId: "lisi" }, ["Done."], { replyTo: "m3" }, t0 + 60_000);
    const again = outbox.nextDue(["wecom-app"], t0 + 60_000) as OutboxItem;
    // The check would swallow a second "Done." to zhangsan: that send does not ask for it.
    expect(outbox.duplicateCheckFits(again, WECOM_DUPLICATE_CHECK_SECONDS, t0 + 60_000)).toBe(
      false,
    );
    expect(outbox.duplicateCheckFits(again, WECOM_DUPLICATE_CHECK_SECONDS, t0 + window + 1)).toBe(
      true,
    );
    const other = { ...again, id: again.id + 1, peerId: "lisi" };
    expect(outbox.duplicateCheckFits(other, WECOM_DUPLICATE_CHECK_SECONDS, t0 + 60_000)).toBe(true);
  });

  it("after a crash mid-send resends what asked for the check while its window is open, and fails the rest", () => {
    const t0 = 1_000_000_000_000;
    const first = open();
    // Sent earlier: "Done." to zhangsan.
    const [earlier] = first.outbox.enqueue(app, ["Done."], { replyTo: "m0" }, t0).ids;
    first.outbox.claim(earlier as number);
    first.outbox.settle({ id: earlier } as OutboxItem, { kind: "sent" }, t0);
    // Caught in `sending` by the crash: a fresh text (asked), a repeated "Done." (did not
    // ask), and a fresh text to someone else whose attempt began long ago.
    const [fresh] = first.outbox.enqueue(app, ["It is 21 °C."], { replyTo: "m1" }, t0 + 1000).ids;
    const [repeat] = first.outbox.enqueue(app, ["Done."], { replyTo: "m9" }, t0 + 1000).ids;
    const [old] = first.outbox.enqueue(
      { ...app, peerId: "lisi" },
      ["The door is locked."],
      { replyTo: "m2" },
      t0 - window,
    ).ids;
    for (const id of [fresh, repeat, old])
      first.store.db
        .query("UPDATE channel_outbox SET state = 'sending' WHERE id = ?")
        .run(id as number);
    first.store.close();
    // Restart two minutes later.
    const { outbox, store: s } = open();
    expect(outbox.recover("wecom-app", caps, t0 + 120_000)).toEqual({ resumed: 1, failed: 2 });
    expect(state(s, fresh as number)).toEqual({
      state: "pending",
      reason: "resent after a restart (the platform drops a repeat)",
    });
    expect(state(s, repeat as number).state).toBe("failed");
    expect(state(s, old as number).state).toBe("failed");
    // Without the check the same crash fails everything, as before.
    outbox.claim(fresh as number);
    const noCheck = { ...caps, duplicateCheckSeconds: undefined };
    expect(outbox.recover("wecom-app", noCheck, t0 + 120_000)).toEqual({ resumed: 0, failed: 1 });
  });
});

describe("reply shaping", () => {
  const caps = { ...qqCapabilities(false), maxLength: 40, maxRepliesPerMessage: 2 };

  it("keeps a reply that fits as one message and flattens markdown for plain-text chats", () => {
    expect(shapeReply("**Done**: see [docs](http://x.y)", qqCapabilities(false))).toEqual([
      "Done: see docs (http://x.y)",
    ]);
    expect(shapeReply("**Done**", qqCapabilities(true))).toEqual(["**Done**"]);
  });

  it("splits a long reply only at paragraph boundaries and never exceeds the message count", () => {
    const p1 = "First paragraph is here.";
    const p2 = "Second paragraph is here.";
    expect(shapeReply(`${p1}\n\n${p2}`, caps)).toEqual([p1, p2]);
    const parts = shapeReply(`${p1}\n\n${p2}\n\nThird paragraph, also long.`, caps);
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(40);
    expect(parts[1]).toContain("reply cut");
  });
});
