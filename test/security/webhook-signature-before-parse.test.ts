/**
 * Attack 2 of issue 23 against a real `clawbox run` with both webhooks on: unsigned,
 * 256 KB hostile bodies (the reported `"<a><![CDATA[" × 21800` and its cousins, deep or
 * long JSON with no or a forged ed25519 signature), 16 of each at once, while `/health`
 * is asked over and over. Each gets its 4xx and `/health` keeps answering 200. Before
 * the fix the CDATA body alone took 3.4 s of event loop each (16 at once: about a
 * minute), so this test's own timeout stops it; the worst times are the
 * webhook-adversarial bench's figures (docs/BENCHMARKS.md), not asserted here.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostileRequests, startWebhookBox, type WebhookBox } from "../support/webhook-box.ts";

describe("webhooks verify before they parse (real clawbox run)", () => {
  let box: WebhookBox;

  beforeAll(async () => {
    box = await startWebhookBox();
  }, 90_000);

  afterAll(async () => {
    await box?.close();
  });

  for (const attack of hostileRequests()) {
    it(`${attack.webhook}: ${attack.name}: refused, /health keeps answering`, {
      timeout: 20_000,
    }, async () => {
      let attacking = true;
      const health: number[] = [];
      const probe = (async () => {
        while (attacking) {
          health.push((await fetch(`${box.url}/health`)).status);
          await Bun.sleep(20);
        }
      })();
      const answers = await Promise.all(
        Array.from({ length: 16 }, () =>
          fetch(`${box.url}${attack.path}`, attack.init).then(async (r) => ({
            status: r.status,
            text: await r.text(),
          })),
        ),
      );
      attacking = false;
      await probe;
      const expected = attack.webhook === "qq" ? 401 : 400;
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => expected));
      expect(health.length).toBeGreaterThan(0);
      expect(health.every((s) => s === 200)).toBe(true);
    });
  }

  it("qq: no signature headers: refused before the body is sent", { timeout: 15_000 }, async () => {
    // Headers and half a body, then nothing more: the answer must come anyway.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${box.url}/channels/qq/webhook`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Content-Length": String(200_000) },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
      req.write(Buffer.alloc(100_000, "["));
    });
    expect(status).toBe(401);
  });
});
