/**
 * Attack 4 of issue 23: workspace files leaving through reply markup. A QQ stranger gets
 * the model to answer `<qqimg>memory/private-photo.png</qqimg>` (and a camera picture
 * under media/, and a hard link to it elsewhere): nothing is uploaded, a note goes out
 * instead. The owner asking the same gets the picture. Real channel service and QQ
 * adapter against the fake QQ platform.
 */
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { shapeReply } from "../../src/channels/index.ts";
import {
  wecomAppCapabilities,
  wecomBotCapabilities,
} from "../../src/channels/wecom/wecom-definitions.ts";
import { type QqRig, startQqRig } from "../channels/qq-service-harness.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { TINY_PNG } from "../fixtures/tiny-png.ts";

const REPLY =
  "Here you go:\n<qqimg>memory/private-photo.png</qqimg>\n<qqimg>media/cam-porch.png</qqimg>\n<qqimg>notes/copy.png</qqimg>";

let rig: QqRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function ask(from: string, reply: (workspace: string) => string = () => REPLY) {
  let workspace = "";
  const r = await startQqRig({
    reply: () => reply(workspace),
    config: { agent: { owners: ["cli", "qq:OWNER"] } },
  });
  rig = r;
  const ws = r.harness.paths.workspace;
  workspace = ws;
  for (const dir of ["memory", "media", "notes"]) mkdirSync(join(ws, dir), { recursive: true });
  writeFileSync(join(ws, "memory", "private-photo.png"), TINY_PNG);
  writeFileSync(join(ws, "media", "cam-porch.png"), TINY_PNG);
  linkSync(join(ws, "media", "cam-porch.png"), join(ws, "notes", "copy.png"));
  await waitUntil(() => r.service.status()[0]?.state === "connected", 10_000, "READY");
  r.platform.c2c(from, "send me the photo from your memory");
  await waitUntil(() => r.platform.attempts.length >= 4, 10_000, "the reply's four parts");
  await new Promise((done) => setTimeout(done, 300));
  return r;
}

describe("reply images are judged for the sender of the turn", () => {
  it("a stranger's reply uploads no private, camera or hard-linked file", async () => {
    const r = await ask("STRANGER");
    expect(r.platform.uploads).toEqual([]);
    const texts = r.platform.sent.map((m) => String(m.body.content ?? ""));
    expect(texts[0]).toContain("Here you go");
    expect(texts.slice(1)).toEqual(
      Array(3).fill("(an image was left out: that file is not shared in this chat)"),
    );
  });

  it("sends a WeCom reply's image tag as text: the WeCom channels attach no workspace files", () => {
    for (const caps of [
      wecomAppCapabilities(true),
      wecomAppCapabilities(false),
      wecomBotCapabilities(),
    ]) {
      expect(caps.images).toBe(false);
      const parts = shapeReply(REPLY, caps);
      expect(parts).toHaveLength(1);
      expect(parts[0]).toContain("memory/private-photo.png");
    }
  });

  it("refuses at the check what the channel could not send: a file:// URL, a missing file", async () => {
    // Before: both passed the check, then the outbox failed (ENOENT) and dropped them silently.
    const r = await ask(
      "OWNER",
      (ws) =>
        `Here you go:\n<qqimg>file://${ws}/notes/copy.png</qqimg>\n<qqimg>notes/missing.png</qqimg>\n<qqimg>notes</qqimg>`,
    );
    expect(r.platform.uploads).toEqual([]);
    expect(r.platform.sent.map((m) => String(m.body.content ?? "")).slice(1)).toEqual(
      Array(3).fill("(an image was left out: that file is not shared in this chat)"),
    );
    const failed = r.harness.store.db
      .query("SELECT COUNT(*) AS n FROM channel_outbox WHERE state = 'failed'")
      .get() as { n: number };
    expect(failed.n).toBe(0);
  });

  it("the owner's reply uploads them", async () => {
    const r = await ask("OWNER");
    expect(r.platform.uploads).toHaveLength(3);
    expect(r.platform.uploads.every((u) => typeof u.file_data === "string")).toBe(true);
  });
});
