/**
 * Fake WeCom server API for the self-built app, on 127.0.0.1, written from the
 * platform's documents (developer.work.weixin.qq.com): gettoken (document 91039),
 * message/send (90236), media/get (90254), and the
 * global error codes (90313: 40001 bad secret, 40014 invalid token, 42001 expired
 * token, 40007 bad media id). Tests can expire every issued token and read what was sent.
 *
 * message/send's duplicate check (90236: with `"enable_duplicate_check": 1`, "the same
 * content (request JSON) within the interval is not received twice"; the interval is
 * `duplicate_check_interval`, default 1800 s, at most 4 hours): a repeat of an earlier
 * checked request inside its interval is not delivered (not added to `sent`). The
 * document does not say what the repeat is answered; the fake answers it like the first
 * (errcode 0 and the first's msgid).
 */
import { randomBytes } from "node:crypto";

export interface FakeSentMessage {
  touser: string;
  msgtype: string;
  agentid: number;
  content: string;
}

export interface FakeWeComApi {
  url: string;
  /** Every accepted message/send, in order. */
  sent: FakeSentMessage[];
  /** How often gettoken was called successfully. */
  tokensIssued(): number;
  /** Makes every issued token answer 42001 from now on. */
  expireTokens(): void;
  /** Serves `bytes` for media/get?media_id=`mediaId`. */
  addMedia(mediaId: string, bytes: Uint8Array, contentType: string): void;
  /** Answers the next message/send calls with this HTTP status (e.g. 500), once each. */
  failNextSends(count: number): void;
  /**
   * The next `count` message/send calls are delivered (added to `sent`) but answered
   * only when `release()` is called: a sender killed meanwhile never learns the outcome.
   */
  holdNextSends(count: number): void;
  release(): void;
  /** Repeats the duplicate check kept from being delivered. */
  suppressed(): number;
  close(): Promise<void>;
}

export function startFakeWeComApi(credentials: {
  corpId: string;
  corpSecret: string;
}): FakeWeComApi {
  const live = new Set<string>();
  const expired = new Set<string>();
  const media = new Map<string, { bytes: Uint8Array; contentType: string }>();
  const sent: FakeSentMessage[] = [];
  let issued = 0;
  let failures = 0;
  let holds = 0;
  const held: (() => void)[] = [];
  /** Checked request JSON (canonical) → when its interval ends and the first's msgid. */
  const checked = new Map<string, { until: number; msgid: string }>();
  let suppressedCount = 0;

  const tokenError = (token: string | null): Response | undefined => {
    if (token && expired.has(token))
      return json({ errcode: 42001, errmsg: "access_token expired" });
    if (!token || !live.has(token)) return json({ errcode: 40014, errmsg: "invalid access_token" });
    return undefined;
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const token = url.searchParams.get("access_token");
      if (url.pathname === "/cgi-bin/gettoken") {
        if (
          url.searchParams.get("corpid") !== credentials.corpId ||
          url.searchParams.get("corpsecret") !== credentials.corpSecret
        ) {
          return json({ errcode: 40001, errmsg: "invalid credential" });
        }
        const fresh = randomBytes(16).toString("hex");
        live.add(fresh);
        issued += 1;
        return json({ errcode: 0, errmsg: "ok", access_token: fresh, expires_in: 7200 });
      }
      if (url.pathname === "/cgi-bin/message/send" && request.method === "POST") {
        if (failures > 0) {
          failures -= 1;
          return new Response("busy", { status: 500 });
        }
        const refused = tokenError(token);
        if (refused) return refused;
        const body = (await request.json()) as Record<string, unknown>;
        const msgtype = String(body.msgtype);
        const part = body[msgtype] as { content?: unknown } | undefined;
        if (typeof part?.content !== "string" || typeof body.touser !== "string") {
          return json({ errcode: 40008, errmsg: "invalid message type" });
        }
        const limit = 2048;
        if (Buffer.byteLength(part.content) > limit) {
          return json({ errcode: 45002, errmsg: "content size out of limit" });
        }
        const check = body.enable_duplicate_check === 1;
        const key = JSON.stringify([body.touser, msgtype, body.agentid, part.content]);
        const earlier = checked.get(key);
        if (check && earlier && earlier.until > Date.now()) {
          suppressedCount += 1;
          return json({ errcode: 0, errmsg: "ok", msgid: earlier.msgid });
        }
        sent.push({
          touser: body.touser,
          msgtype,
          agentid: Number(body.agentid),
          content: part.content,
        });
        const msgid = randomBytes(8).toString("hex");
        if (check) {
          const interval = Math.min(Number(body.duplicate_check_interval ?? 1800), 4 * 3600);
          checked.set(key, { until: Date.now() + interval * 1000, msgid });
        }
        if (holds > 0) {
          holds -= 1;
          await new Promise<void>((resolve) => held.push(resolve));
        }
        return json({ errcode: 0, errmsg: "ok", msgid });
      }
      if (url.pathname === "/cgi-bin/media/get") {
        const refused = tokenError(token);
        if (refused) return refused;
        const item = media.get(url.searchParams.get("media_id") ?? "");
        if (!item) return json({ errcode: 40007, errmsg: "invalid media_id" });
        return new Response(item.bytes, { headers: { "content-type": item.contentType } });
      }
      return new Response("not found", { status: 404 });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    sent,
    tokensIssued: () => issued,
    expireTokens() {
      for (const token of live) expired.add(token);
    },
    addMedia(mediaId, bytes, contentType) {
      media.set(mediaId, { bytes, contentType });
    },
    failNextSends(count) {
      failures = count;
    },
    holdNextSends(count) {
      holds = count;
    },
    release() {
      for (const resolve of held.splice(0)) resolve();
    },
    suppressed: () => suppressedCount,
    async close() {
      for (const resolve of held.splice(0)) resolve();
      await server.stop(true);
    },
  };
}

function json(body: unknown): Response {
  return Response.json(body);
}
