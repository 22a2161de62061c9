import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_SEND_ATTEMPTS, Outbox, shapeReply } from "../../src/channels/index.ts";
import { qqCapabilities } from "../../src/channels/qq/qq-definition.ts";
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
