/**
 * A fake QQ open platform on 127.0.0.1 for tests, written from the QQ bot docs
 * (tencent-connect/bot-docs: dev-prepare/interface-framework/event-emit.md for the
 * gateway ops and webhook validation, sign.md for ed25519, server-inter/message/send-
 * receive/send.html for messages: passive replies within 60 min (C2C) / 5 min (group),
 * at most 5 per message, duplicate (msg_id, msg_seq) refused with 40054005).
 * It serves the token endpoint, GET /gateway, the WebSocket gateway (Hello, Identify →
 * READY, Resume → replay + RESUMED, heartbeat ACKs, and any op on demand), the message
 * and file endpoints, and records everything it receives. Tests can also make sends
 * fail, hold them unanswered, or revoke the current token.
 */
import { createPrivateKey, sign } from "node:crypto";
import type { Server, ServerWebSocket } from "bun";

export const DUPLICATE_CODE = 40054005;

export interface SentMessage {
  chatType: "direct" | "group";
  peerId: string;
  body: Record<string, unknown>;
  at: number;
}

interface Frame {
  op: number;
  d?: unknown;
  s?: number | null;
  t?: string | null;
}

export interface FakeQqOptions {
  appId?: string;
  clientSecret?: string;
  heartbeatIntervalMs?: number;
  /** Token lifetime sent as a string, as the real endpoint does (default "7200"). */
  expiresIn?: string | number;
}

export class FakeQqPlatform {
  readonly appId: string;
  readonly clientSecret: string;
  /** Every frame a client sent on the gateway, per connection, in order. */
  readonly connections: Frame[][] = [];
  /** Messages accepted by the message endpoints. */
  readonly sent: SentMessage[] = [];
  /** Every message POST, accepted or not, with the status answered. */
  readonly attempts: (SentMessage & { status: number })[] = [];
  readonly uploads: Record<string, unknown>[] = [];
  tokenRequests = 0;
  /** Message POSTs that reached the platform (counted on arrival). */
  arrivals = 0;
  ackHeartbeats = true;
  /** What GET /gateway answers; by default this server's own ws:// URL (a TLS front sets wss://). */
  gatewayUrl: string | undefined;
  private server: Server<{ index: number }> | undefined;
  private socket: ServerWebSocket<{ index: number }> | undefined;
  private tokens = new Set<string>();
  private tokenCount = 0;
  private seq = 0;
  private sessionId = "";
  private readonly history: Frame[] = [];
  private readonly inbound = new Map<
    string,
    { at: number; chatType: "direct" | "group"; replies: number }
  >();
  private failures: number[] = [];
  private hold: Promise<void> | undefined;
  private release: (() => void) | undefined;
  private readonly options: FakeQqOptions;

  constructor(options: FakeQqOptions = {}) {
    this.options = options;
    this.appId = options.appId ?? "1020304";
    this.clientSecret = options.clientSecret ?? "DG5g3B4j9X2KOErG";
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get port(): number {
    return this.server?.port ?? 0;
  }

  get tokenUrl(): string {
    return `${this.url}/app/getAppAccessToken`;
  }

  get connected(): boolean {
    return this.socket !== undefined;
  }

  start(): this {
    this.server = Bun.serve<{ index: number }>({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request, server) => this.handle(request, server),
      websocket: {
        open: (ws) => {
          this.socket = ws;
          this.connections.push([]);
          ws.data.index = this.connections.length - 1;
          ws.send(
            JSON.stringify({
              op: 10,
              d: { heartbeat_interval: this.options.heartbeatIntervalMs ?? 45_000 },
            }),
          );
        },
        message: (ws, raw) => this.onClientFrame(ws, String(raw)),
        close: (ws) => {
          if (this.socket === ws) this.socket = undefined;
        },
      },
    });
    return this;
  }

  async stop(): Promise<void> {
    this.release?.();
    await this.server?.stop(true);
  }

  /** A user's direct message, as C2C_MESSAGE_CREATE. Returns its message id. */
  c2c(
    openid: string,
    content: string,
    id = `msg-${crypto.randomUUID()}`,
    extra: Record<string, unknown> = {},
  ): string {
    this.inbound.set(id, { at: Date.now(), chatType: "direct", replies: 0 });
    this.dispatch("C2C_MESSAGE_CREATE", {
      id,
      content,
      timestamp: new Date().toISOString(),
      author: { user_openid: openid },
      attachments: [],
      ...extra,
    });
    return id;
  }

  /** A group message that @-mentions the bot, as GROUP_AT_MESSAGE_CREATE. */
  groupAt(
    groupOpenid: string,
    memberOpenid: string,
    content: string,
    id = `gmsg-${crypto.randomUUID()}`,
  ): string {
    this.inbound.set(id, { at: Date.now(), chatType: "group", replies: 0 });
    this.dispatch("GROUP_AT_MESSAGE_CREATE", {
      id,
      content: ` ${content}`,
      timestamp: new Date().toISOString(),
      group_openid: groupOpenid,
      author: { member_openid: memberOpenid },
      attachments: [],
    });
    return id;
  }

  /** An op 0 dispatch with the next seq (kept for resume replays). */
  dispatch(t: string, d: unknown): number {
    const frame = { op: 0, s: ++this.seq, t, d };
    this.history.push(frame);
    this.socket?.send(JSON.stringify(frame));
    return frame.s;
  }

  /** Sends the same dispatch frame again with its original seq (a replay). */
  replay(seq: number): void {
    const frame = this.history.find((f) => f.s === seq);
    if (frame) this.socket?.send(JSON.stringify(frame));
  }

  /** Any frame, e.g. op 7 or op 9. */
  sendOp(op: number, d: unknown = null): void {
    this.socket?.send(JSON.stringify({ op, d }));
  }

  sendRaw(text: string): void {
    this.socket?.send(text);
  }

  closeSocket(code = 4000, reason = "test"): void {
    this.socket?.close(code, reason);
  }

  /** The next `n` message POSTs answer `status` (default 500). */
  failNextSends(n: number, status = 500): void {
    for (let i = 0; i < n; i++) this.failures.push(status);
  }

  /** Message POSTs are processed (accepted or refused) but not answered until `releaseSends()`. */
  holdSends(): void {
    this.hold = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  releaseSends(): void {
    this.release?.();
    this.hold = undefined;
  }

  revokeTokens(): void {
    this.tokens.clear();
  }

  /** Signs `timestamp + body` as the platform does for webhook requests. */
  signWebhook(timestamp: string, body: string): string {
    let seed = this.clientSecret;
    while (seed.length < 32) seed = seed.repeat(2);
    const der = Buffer.concat([
      Buffer.from("302e020100300506032b657004220420", "hex"),
      Buffer.from(seed.slice(0, 32)),
    ]);
    const key = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
    return sign(null, Buffer.from(timestamp + body), key).toString("hex");
  }

  /** Registers a message id as delivered (for webhook tests, where the fake does not dispatch). */
  noteInbound(id: string, chatType: "direct" | "group"): void {
    this.inbound.set(id, { at: Date.now(), chatType, replies: 0 });
  }

  private authorized(request: Request): boolean {
    const header = request.headers.get("authorization") ?? "";
    return header.startsWith("QQBot ") && this.tokens.has(header.slice(6));
  }

  private async handle(
    request: Request,
    server: Server<{ index: number }>,
  ): Promise<Response | undefined> {
    const url = new URL(request.url);
    if (url.pathname === "/websocket") {
      if (server.upgrade(request, { data: { index: -1 } })) return undefined;
      return new Response("upgrade failed", { status: 400 });
    }
    if (request.method === "POST" && url.pathname === "/app/getAppAccessToken") {
      this.tokenRequests += 1;
      const body = (await request.json()) as { appId?: string; clientSecret?: string };
      if (body.appId !== this.appId || body.clientSecret !== this.clientSecret)
        return Response.json({ code: 100016, message: "invalid appid or secret" }, { status: 400 });
      const token = `tok-${++this.tokenCount}`;
      this.tokens.add(token);
      return Response.json({ access_token: token, expires_in: this.options.expiresIn ?? "7200" });
    }
    if (!this.authorized(request))
      return Response.json({ code: 11244, message: "token not exist or expire" }, { status: 401 });
    if (request.method === "GET" && url.pathname === "/gateway")
      return Response.json({ url: this.gatewayUrl ?? `ws://127.0.0.1:${server.port}/websocket` });
    const files = /^\/v2\/(users|groups)\/([^/]+)\/files$/.exec(url.pathname);
    if (request.method === "POST" && files) {
      const body = (await request.json()) as Record<string, unknown>;
      this.uploads.push(body);
      return Response.json({
        file_uuid: `fu-${this.uploads.length}`,
        file_info: `fi-${this.uploads.length}`,
        ttl: 3600,
      });
    }
    const messages = /^\/v2\/(users|groups)\/([^/]+)\/messages$/.exec(url.pathname);
    if (request.method === "POST" && messages)
      return this.onMessage(
        request,
        messages[1] === "groups" ? "group" : "direct",
        decodeURIComponent(messages[2] ?? ""),
      );
    return Response.json({ code: 404, message: "no such route" }, { status: 404 });
  }

  private async onMessage(
    request: Request,
    chatType: "direct" | "group",
    peerId: string,
  ): Promise<Response> {
    const body = (await request.json()) as Record<string, unknown>;
    const record = { chatType, peerId, body, at: Date.now() };
    this.arrivals += 1;
    const hold = this.hold;
    const answer = async (status: number, json: unknown) => {
      this.attempts.push({ ...record, status });
      // Held: the platform has processed the message but the answer has not left yet.
      if (hold) await hold;
      return Response.json(json, { status });
    };
    const failure = this.failures.shift();
    if (failure !== undefined) return answer(failure, { code: 500, message: "internal error" });
    const msgId = typeof body.msg_id === "string" ? body.msg_id : undefined;
    const msgSeq = typeof body.msg_seq === "number" ? body.msg_seq : 1;
    if (msgId) {
      if (this.sent.some((m) => m.body.msg_id === msgId && (m.body.msg_seq ?? 1) === msgSeq))
        return answer(400, {
          code: DUPLICATE_CODE,
          err_code: DUPLICATE_CODE,
          message: "消息被去重，请检查请求msgseq",
        });
      const source = this.inbound.get(msgId);
      if (!source) return answer(400, { code: 40034025, message: "msg_id not found" });
      const window = source.chatType === "direct" ? 60 * 60_000 : 5 * 60_000;
      if (Date.now() - source.at > window)
        return answer(400, { code: 40034024, message: "passive reply window expired" });
      if (source.replies >= 5)
        return answer(400, { code: 40034028, message: "passive reply limit reached" });
      source.replies += 1;
    }
    this.sent.push(record);
    return answer(200, { id: `bot-msg-${this.sent.length}`, timestamp: new Date().toISOString() });
  }

  private onClientFrame(ws: ServerWebSocket<{ index: number }>, raw: string): void {
    const frame = JSON.parse(raw) as Frame;
    this.connections[ws.data.index]?.push(frame);
    const d = (frame.d ?? {}) as Record<string, unknown>;
    if (frame.op === 1) {
      if (this.ackHeartbeats) ws.send(JSON.stringify({ op: 11 }));
      return;
    }
    if (frame.op === 2) {
      const token = String(d.token ?? "");
      if (!token.startsWith("QQBot ") || !this.tokens.has(token.slice(6))) {
        ws.close(4004, "invalid token");
        return;
      }
      this.sessionId = `session-${crypto.randomUUID()}`;
      const ready = {
        op: 0,
        s: ++this.seq,
        t: "READY",
        d: {
          version: 1,
          session_id: this.sessionId,
          user: { id: "bot", username: "clawbox", bot: true },
          shard: [0, 1],
        },
      };
      this.history.push(ready);
      ws.send(JSON.stringify(ready));
      return;
    }
    if (frame.op === 6) {
      if (d.session_id !== this.sessionId) {
        ws.send(JSON.stringify({ op: 9, d: false }));
        return;
      }
      const after = Number(d.seq ?? 0);
      for (const missed of this.history.filter((f) => (f.s ?? 0) > after && f.t !== "READY"))
        ws.send(JSON.stringify(missed));
      ws.send(JSON.stringify({ op: 0, s: ++this.seq, t: "RESUMED", d: "" }));
    }
  }
}

/** Polls until `check` returns true (or throws after `timeoutMs`). */
export async function waitUntil(
  check: () => boolean,
  timeoutMs = 10_000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
