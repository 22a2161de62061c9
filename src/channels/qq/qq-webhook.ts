/**
 * QQ webhook mode (`POST /channels/qq/webhook`). The platform's ed25519 signature over
 * `X-Signature-Timestamp + body` is the only authentication: a missing, malformed or
 * wrong signature gets 401 before the body is decoded or parsed (verified on its raw
 * bytes; the HTTP server caps it at 256 KB before this runs). The URL validation (op 13)
 * is answered with the signed plain_token; a dispatch (op 0) is stored, then acknowledged
 * with op 12. If storing fails the answer is 500, so the platform retries later.
 */
import { z } from "../../schema/index.ts";
import type { ChannelHost, WebhookHandler } from "../channel.ts";
import { frameSchema, messageOfEvent } from "./qq-events.ts";
import { type QqSigningKeys, signHex, verifyHex } from "./qq-signature.ts";

const validation = z.object({
  plain_token: z.string().check(z.minLength(1)),
  event_ts: z.string().check(z.minLength(1)),
});

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const problem = (status: number, code: string, message: string) =>
  json({ error: { code, message } }, status);

export function createQqWebhook(keys: QqSigningKeys, host: ChannelHost): WebhookHandler {
  const refuse = () => {
    host.logger.warn("webhook request with a missing or wrong signature refused");
    return problem(401, "UNAUTHORIZED", "missing or invalid X-Signature-Ed25519");
  };
  return async (request) => {
    const timestamp = request.headers.get("x-signature-timestamp") ?? "";
    const signature = request.headers.get("x-signature-ed25519") ?? "";
    // Checked before the body is even read when a header is missing, and on its raw
    // bytes (never a decoded and re-encoded copy) before it is decoded or parsed.
    if (!timestamp || !signature) return refuse();
    const raw = Buffer.from(await request.arrayBuffer());
    if (!verifyHex(keys.publicKey, Buffer.concat([Buffer.from(timestamp, "utf8"), raw]), signature))
      return refuse();
    host.touch();
    let frame: z.infer<typeof frameSchema>;
    try {
      frame = frameSchema.parse(JSON.parse(raw.toString("utf8")));
    } catch {
      return problem(400, "HTTP_BAD_REQUEST", "body is not a QQ payload ({op, d, s, t})");
    }
    if (frame.op === 13) {
      const d = validation.safeParse(frame.d);
      if (!d.success) return problem(400, "HTTP_BAD_REQUEST", "op 13 without plain_token/event_ts");
      host.setState("connected", "webhook URL validated");
      return json({
        plain_token: d.data.plain_token,
        signature: signHex(keys, d.data.event_ts + d.data.plain_token),
      });
    }
    if (frame.op === 0) {
      let message: ReturnType<typeof messageOfEvent>;
      try {
        message = messageOfEvent(frame.t, frame.d);
      } catch {
        host.logger.warn("malformed webhook message event skipped", { event: frame.t });
        return json({ op: 12, d: 0 });
      }
      if (message) {
        try {
          await host.receive(message);
        } catch {
          return problem(500, "INTERNAL", "message could not be stored; retry later");
        }
      }
      host.setState("connected");
    }
    return json({ op: 12, d: 0 });
  };
}
