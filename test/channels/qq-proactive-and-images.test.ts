import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../fakes/qq-platform.ts";
import { type QqRig, startQqRig } from "./qq-service-harness.ts";

let rig: QqRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe("QQ sending", () => {
  it("delivers a proactive message through the outbox as an active message (no msg_id)", async () => {
    rig = await startQqRig();
    const r = rig;
    await waitUntil(() => r.service.status()[0]?.state === "connected", 10_000, "READY");
    const ids = r.service.deliver(
      { channel: "qq", chatType: "direct", peerId: "USER_A" },
      "**Reminder**: water the plants",
    );
    expect(ids).toHaveLength(1);
    await waitUntil(() => r.platform.sent.length === 1, 10_000, "the proactive message");
    expect(r.platform.sent[0]).toMatchObject({
      chatType: "direct",
      peerId: "USER_A",
      body: { msg_type: 0, content: "Reminder: water the plants", msg_seq: 1 },
    });
    expect(r.platform.sent[0]?.body.msg_id).toBeUndefined();
  });

  it("retries a failed send with backoff and sends it once", async () => {
    rig = await startQqRig();
    const r = rig;
    await waitUntil(() => r.service.status()[0]?.state === "connected", 10_000, "READY");
    r.platform.failNextSends(2, 503);
    const id = r.platform.c2c("USER_A", "hello");
    await waitUntil(() => r.platform.sent.length === 1, 15_000, "the reply after retries");
    expect(r.platform.attempts.map((a) => a.status)).toEqual([503, 503, 200]);
    expect(r.platform.sent[0]?.body).toMatchObject({ msg_id: id, msg_seq: 1 });
  });

  it("uploads images the assistant tags with <qqimg> and sends them as media replies after the text", async () => {
    rig = await startQqRig({
      qq: { markdown: true },
      // The owner: even for an owner a reply attaches only files inside the workspace.
      config: { agent: { owners: ["cli", "qq:USER_A"] } },
      reply: () =>
        "Here is the porch:\n<qqimg>https://example.com/porch.jpg</qqimg>\n<qqimg>/etc/passwd</qqimg>",
    });
    const r = rig;
    writeFileSync(join(r.harness.paths.workspace, "note.txt"), "x");
    await waitUntil(() => r.service.status()[0]?.state === "connected", 10_000, "READY");
    const id = r.platform.c2c("USER_A", "show me the porch");
    await waitUntil(() => r.platform.attempts.length >= 3, 10_000, "text, image and note");
    await new Promise((done) => setTimeout(done, 500));
    expect(r.platform.sent.map((m) => m.body)).toEqual([
      { msg_type: 2, markdown: { content: "Here is the porch:" }, msg_id: id, msg_seq: 1 },
      { msg_type: 7, content: " ", media: { file_info: "fi-1" }, msg_id: id, msg_seq: 2 },
      {
        msg_type: 2,
        markdown: { content: "(an image was left out: that file is not shared in this chat)" },
        msg_id: id,
        msg_seq: 3,
      },
    ]);
    expect(r.platform.uploads).toEqual([
      { file_type: 1, srv_send_msg: false, url: "https://example.com/porch.jpg" },
    ]);
  });

  it("fails an image no retry can fix (not an image) at once, by the error's code; a missing one never reaches the outbox", async () => {
    rig = await startQqRig({
      config: { agent: { owners: ["cli", "qq:USER_A"] } },
      reply: () => "Two files:\n<qqimg>note.txt</qqimg>\n<qqimg>gone.png</qqimg>\nThat is all.",
    });
    const r = rig;
    writeFileSync(join(r.harness.paths.workspace, "note.txt"), "just text, not a picture");
    await waitUntil(() => r.service.status()[0]?.state === "connected", 10_000, "READY");
    r.platform.c2c("USER_A", "send the files");
    const rows = () =>
      r.harness.store.db
        .query("SELECT body, state, attempts, reason FROM channel_outbox ORDER BY id")
        .all() as { body: string; state: string; attempts: number; reason: string | null }[];
    await waitUntil(
      () => rows().some((row) => row.state === "failed"),
      10_000,
      "the image that is not one failed",
    );
    const images = rows().filter((row) => row.body.includes("<qqimg>"));
    expect(images.map(({ state, attempts }) => ({ state, attempts }))).toEqual([
      { state: "failed", attempts: 1 },
    ]);
    expect(images[0]?.reason).toMatch(/note\.txt is not an image/);
    // The missing file was refused when the reply was checked (reply-attachments.ts): a note instead.
    expect(rows().map((row) => JSON.parse(row.body).text)).toContain(
      "(an image was left out: that file is not shared in this chat)",
    );
    expect(r.platform.uploads).toEqual([]);
  });
});
