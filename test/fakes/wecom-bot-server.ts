/**
 * Fake WeCom intelligent-bot long-connection server on 127.0.0.1, written from the
 * platform's document 101463 ("智能机器人长连接"): a WebSocket that expects
 * `aibot_subscribe` {bot_id, secret} and answers every request frame with an ack
 * `{headers: {req_id}, errcode, errmsg}`; pushes `aibot_msg_callback` and
 * `aibot_event_callback` frames (incl. `disconnected_event`); can drop the socket,
 * stop acking pings, refuse the subscribe, or delay acks. It records every frame it
 * receives with its arrival time. It also serves per-message media over HTTP,
 * AES-256-CBC encrypted with the message's own aeskey (IV = key[0..16), PKCS#7 to 32).
 */
import { createCipheriv, randomBytes } from "node:crypto";
import type { ServerWebSocket } from "bun";

export interface ReceivedFrame {
  at: number;
  connection: number;
  cmd: string;
  headers: { req_id: string };
  body?: Record<string, unknown>;
}

export interface FakeBotServer {
  url: string;
  httpUrl: string;
  received: ReceivedFrame[];
  /** Connections opened so far (1-based ids). */
  connections(): number;
  /** Connections currently open. */
  openConnections(): number;
  /** Pushes a message callback to the newest connection; returns its req_id. */
  pushMessage(body: Record<string, unknown>): string;
  pushEvent(body: Record<string, unknown>): string;
  /** Closes the newest connection from the server side. */
  drop(): void;
  ackPings: boolean;
  /** errcode answered to aibot_subscribe (0 = accept). */
  subscribeErrcode: number;
  /** Delay before each ack of a respond/send frame, ms. */
  ackDelayMs: number;
  /** While true, acks of respond/send frames wait for `releaseAck`. */
  holdAcks: boolean;
  /** Sends the oldest held ack; returns false when none is held. */
  releaseAck(): boolean;
  /** Encrypts `bytes` with a fresh aeskey and serves it; returns {url, aeskey}. */
  addMedia(bytes: Uint8Array): { url: string; aeskey: string };
  waitFor(predicate: (frames: ReceivedFrame[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface SocketData {
  id: number;
}

export function startFakeBotServer(credentials: { botId: string; secret: string }): FakeBotServer {
  const received: ReceivedFrame[] = [];
  const sockets = new Map<number, ServerWebSocket<SocketData>>();
  const media = new Map<string, Uint8Array>();
  let opened = 0;
  let seq = 0;

  const state = {
    ackPings: true,
    subscribeErrcode: 0,
    ackDelayMs: 0,
    holdAcks: false,
  };
  const held: (() => void)[] = [];

  const newest = (): ServerWebSocket<SocketData> | undefined => {
    const ids = [...sockets.keys()];
    const last = ids[ids.length - 1];
    return last === undefined ? undefined : sockets.get(last);
  };

  const ack = (ws: ServerWebSocket<SocketData>, reqId: string, errcode = 0): void => {
    if (ws.readyState !== 1) return;
    ws.send(
      JSON.stringify({
        headers: { req_id: reqId },
        errcode,
        errmsg: errcode ? "invalid bot_id or secret" : "ok",
      }),
    );
  };

  const server = Bun.serve<SocketData>({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, srv) {
      const url = new URL(request.url);
      if (url.pathname.startsWith("/media/")) {
        const bytes = media.get(url.pathname.slice("/media/".length));
        return bytes ? new Response(bytes) : new Response("gone", { status: 404 });
      }
      opened += 1;
      if (srv.upgrade(request, { data: { id: opened } })) return undefined;
      return new Response("websocket only", { status: 400 });
    },
    websocket: {
      open(ws) {
        sockets.set(ws.data.id, ws);
      },
      close(ws) {
        sockets.delete(ws.data.id);
      },
      message(ws, raw) {
        const frame = JSON.parse(String(raw)) as Omit<ReceivedFrame, "at" | "connection">;
        received.push({ ...frame, at: Date.now(), connection: ws.data.id });
        const reqId = frame.headers.req_id;
        if (frame.cmd === "aibot_subscribe") {
          const ok =
            frame.body?.bot_id === credentials.botId && frame.body?.secret === credentials.secret;
          const errcode = ok ? state.subscribeErrcode : 40058;
          ack(ws, reqId, errcode);
          if (errcode) setTimeout(() => ws.close(), 10);
          return;
        }
        if (frame.cmd === "ping") {
          if (state.ackPings) ack(ws, reqId);
          return;
        }
        if (state.holdAcks) held.push(() => ack(ws, reqId));
        else if (state.ackDelayMs > 0) setTimeout(() => ack(ws, reqId), state.ackDelayMs);
        else ack(ws, reqId);
      },
    },
  });

  const push = (cmd: string, body: Record<string, unknown>): string => {
    seq += 1;
    const reqId = `req_${seq}_${randomBytes(3).toString("hex")}`;
    newest()?.send(JSON.stringify({ cmd, headers: { req_id: reqId }, body }));
    return reqId;
  };

  return {
    url: `ws://127.0.0.1:${server.port}`,
    httpUrl: `http://127.0.0.1:${server.port}`,
    received,
    connections: () => opened,
    openConnections: () => sockets.size,
    pushMessage: (body) => push("aibot_msg_callback", body),
    pushEvent: (body) => push("aibot_event_callback", body),
    drop() {
      newest()?.close(1001, "going away");
    },
    get ackPings() {
      return state.ackPings;
    },
    set ackPings(value) {
      state.ackPings = value;
    },
    get subscribeErrcode() {
      return state.subscribeErrcode;
    },
    set subscribeErrcode(value) {
      state.subscribeErrcode = value;
    },
    get ackDelayMs() {
      return state.ackDelayMs;
    },
    set ackDelayMs(value) {
      state.ackDelayMs = value;
    },
    get holdAcks() {
      return state.holdAcks;
    },
    set holdAcks(value) {
      state.holdAcks = value;
    },
    releaseAck() {
      const next = held.shift();
      next?.();
      return next !== undefined;
    },
    addMedia(bytes) {
      const key = randomBytes(32);
      const pad = 32 - (bytes.length % 32);
      const cipher = createCipheriv("aes-256-cbc", key, key.subarray(0, 16));
      cipher.setAutoPadding(false);
      const sealed = Buffer.concat([
        cipher.update(Buffer.concat([Buffer.from(bytes), Buffer.alloc(pad, pad)])),
        cipher.final(),
      ]);
      const id = randomBytes(6).toString("hex");
      media.set(id, sealed);
      return { url: `http://127.0.0.1:${server.port}/media/${id}`, aeskey: key.toString("base64") };
    },
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) {
          throw new Error(
            `fake bot server: condition not met in ${timeoutMs} ms; frames: ${received.map((f) => f.cmd).join(",")}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      await server.stop(true);
    },
  };
}
