import { createPublicKey, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { qqSigningKeys, signHex } from "../../src/channels/qq/qq-signature.ts";
import { createApp } from "../../src/server/index.ts";
import { createSessionResolver } from "../../src/sessions/index.ts";
import { silentLogger } from "../../src/system/index.ts";
import { waitUntil } from "../fakes/qq-platform.ts";
import { startQqRig } from "./qq-service-harness.ts";

describe("QQ webhook signatures", () => {
  it("derive the key from the secret as the QQ docs' examples do", () => {
    // sign.md DEMO: the public key derived from this secret (the secret repeated to a 32-byte seed).
    const keys = qqSigningKeys("naOC0ocQE3shWLAfffVLB1rhYPG7");
    const raw = keys.publicKey.export({ format: "der", type: "spki" }).subarray(-32);
    expect([...raw]).toEqual([
      215, 195, 98, 254, 120, 174, 248, 31, 242, 50, 135, 180, 147, 98, 139, 93, 176, 42, 60, 79,
      227, 11, 33, 94, 77, 25, 96, 155, 93, 118, 103, 58,
    ]);
    // event-emit.md: secret DG5g3B4j9X2KOErG answers this op 13 validation with this signature.
    expect(signHex(qqSigningKeys("DG5g3B4j9X2KOErG"), "1725442341Arq0D5A61EgUu4OxUvOp")).toBe(
      "87befc99c42c651b3aac0278e71ada338433ae26fcb24307bdc5ad38c1adc2d01bcfcadc0842edac85e85205028a1132afe09280305f13aa6909ffc2d652c706",
    );
  });
});

function post(app: ReturnType<typeof createApp>, body: string, headers: Record<string, string>) {
  return app.request("/channels/qq/webhook", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
}

describe("QQ webhook mode", () => {
  it("passes URL validation, answers a signed message, and refuses forged, unsigned and oversized requests", async () => {
    const rig = await startQqRig({ qq: { mode: "webhook" } });
    try {
      const app = createApp({
        backend: {
          chat: async () => ({ sessionId: "", sessionKey: "", reply: "", silent: true }),
          modelState: () => ({}),
        },
        version: "test",
        startedAt: Date.now(),
        dbHealth: () => "ok",
        logger: silentLogger,
        sessions: createSessionResolver(rig.harness.config.agent),
        channels: {
          status: () => rig.service.status(),
          webhook: (id, request) => rig.service.webhook(id, request),
        },
      });
      const { platform } = rig;
      // op 13, the docs' example: the answer must verify with the public key alone.
      const validation = JSON.stringify({
        d: { plain_token: "Arq0D5A61EgUu4OxUvOp", event_ts: "1725442341" },
        op: 13,
      });
      const ts = "1725442341";
      const ok = await post(app, validation, {
        "x-signature-timestamp": ts,
        "x-signature-ed25519": platform.signWebhook(ts, validation),
        "x-bot-appid": platform.appId,
      });
      expect(ok.status).toBe(200);
      const answer = (await ok.json()) as { plain_token: string; signature: string };
      expect(answer.plain_token).toBe("Arq0D5A61EgUu4OxUvOp");
      expect(answer.signature).toBe(
        "87befc99c42c651b3aac0278e71ada338433ae26fcb24307bdc5ad38c1adc2d01bcfcadc0842edac85e85205028a1132afe09280305f13aa6909ffc2d652c706",
      );
      const publicOnly = createPublicKey({
        key: qqSigningKeys(platform.clientSecret).publicKey.export({ format: "der", type: "spki" }),
        format: "der",
        type: "spki",
      });
      expect(
        verify(
          null,
          Buffer.from(`1725442341Arq0D5A61EgUu4OxUvOp`),
          publicOnly,
          Buffer.from(answer.signature, "hex"),
        ),
      ).toBe(true);

      const event = (id: string, content: string) =>
        JSON.stringify({
          op: 0,
          s: 1,
          t: "C2C_MESSAGE_CREATE",
          d: {
            id,
            content,
            timestamp: new Date().toISOString(),
            author: { user_openid: "USER_W" },
            attachments: [],
          },
        });
      const forged = event("m-forged", "give me the files");
      const forgedRes = await post(app, forged, {
        "x-signature-timestamp": ts,
        "x-signature-ed25519": platform.signWebhook(ts, event("m-other", "innocent")),
      });
      expect(forgedRes.status).toBe(401);
      expect((await post(app, forged, { "x-signature-timestamp": ts })).status).toBe(401);
      const big = JSON.stringify({ op: 0, d: { pad: "x".repeat(300 * 1024) } });
      expect(
        (
          await post(app, big, {
            "x-signature-timestamp": ts,
            "x-signature-ed25519": platform.signWebhook(ts, big),
          })
        ).status,
      ).toBe(413);

      platform.noteInbound("m-real", "direct");
      const real = event("m-real", "hello over webhook");
      const realHeaders = {
        "x-signature-timestamp": ts,
        "x-signature-ed25519": platform.signWebhook(ts, real),
      };
      const ack = await post(app, real, realHeaders);
      expect(ack.status).toBe(200);
      expect(await ack.json()).toEqual({ op: 12, d: 0 });
      // The platform retries the same event: acknowledged again, answered once.
      expect((await post(app, real, realHeaders)).status).toBe(200);
      await waitUntil(() => platform.sent.length === 1, 10_000, "webhook reply");
      await new Promise((done) => setTimeout(done, 300));
      expect(platform.sent).toHaveLength(1);
      expect(platform.sent[0]?.body).toMatchObject({ msg_id: "m-real", msg_seq: 1 });
      expect(rig.fake.requests).toHaveLength(1);
      const inbox = rig.harness.store.db.query("SELECT message_id FROM channel_inbox").all();
      expect(inbox).toEqual([{ message_id: "m-real" }]);
    } finally {
      await rig.close();
    }
  });
});
