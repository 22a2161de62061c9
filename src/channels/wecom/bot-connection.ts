/**
 * The intelligent bot's long connection (document 101463), on Bun's built-in
 * WebSocket. Guarantees:
 * - `aibot_subscribe` (bot_id, secret) right after the socket opens; `ping` every
 *   `pingIntervalMs` after the subscribe is acknowledged; two unanswered pings in a
 *   row count as a dead socket.
 * - A dropped or dead socket is reopened with exponential backoff from 1 s up to 30 s
 *   (reset by the next successful subscribe); a refused subscribe is reported in plain
 *   words and retried slowly (`authRetryMs`, default 60 s).
 * - `disconnected_event` means a newer connection took over: the socket is closed and
 *   never reopened (reconnecting would only steal the connection back and forth).
 * - Frames that share a req_id go out one at a time, in order; each waits for its ack
 *   (or `ackTimeoutMs`) before the next is sent.
 * The secret is never logged or put in an error.
 */
import { ClawboxError } from "../../errors/index.ts";
import { clockHint, type Logger } from "../../system/index.ts";
import {
  BOT_CMD,
  type BotEventBody,
  type BotMessageBody,
  botEventBody,
  botMessageBody,
  type InboundFrame,
  inboundFrame,
  type OutboundFrame,
} from "./bot-frames.ts";

export type BotConnectionState =
  | { kind: "connecting" }
  | { kind: "connected" }
  | { kind: "reconnecting"; reason: string; inMs: number }
  | { kind: "auth-failed"; reason: string; inMs: number }
  | { kind: "handed-over" }
  | { kind: "stopped" };

export interface BotConnectionOptions {
  wsUrl: string;
  botId: string;
  secret: string;
  pingIntervalMs: number;
  logger: Logger;
  /** Must not throw. */
  onMessage(reqId: string, body: BotMessageBody): void;
  /** Must not throw. Not called for `disconnected_event` (see `onState`). */
  onEvent?(reqId: string, body: BotEventBody): void;
  /** Must not throw. */
  onState(state: BotConnectionState): void;
  ackTimeoutMs?: number;
  authRetryMs?: number;
  backoffMinMs?: number;
  backoffMaxMs?: number;
}

export interface BotConnection {
  start(): void;
  stop(): void;
  /** Sends one frame and resolves with its ack (rejects on errcode ≠ 0, timeout or drop). */
  request(cmd: string, reqId: string, body: Record<string, unknown>): Promise<InboundFrame>;
  readonly connected: boolean;
}

interface PendingAck {
  resolve(frame: InboundFrame): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

const MAX_MISSED_PINGS = 2;

/** A fresh req_id for frames that do not answer a callback. */
export function newReqId(prefix: string): string {
  const random = crypto.getRandomValues(new Uint32Array(1))[0] ?? 0;
  return `${prefix}_${Date.now()}_${random.toString(16).padStart(8, "0")}`;
}

export function createBotConnection(options: BotConnectionOptions): BotConnection {
  const log = options.logger;
  const ackTimeoutMs = options.ackTimeoutMs ?? 5_000;
  const authRetryMs = options.authRetryMs ?? 60_000;
  const backoffMinMs = options.backoffMinMs ?? 1_000;
  const backoffMaxMs = options.backoffMaxMs ?? 30_000;
  let socket: WebSocket | undefined;
  let subscribed = false;
  let stopped = true;
  let attempts = 0;
  let missedPings = 0;
  let authFailure: string | undefined;
  /** The socket's last error (e.g. a refused TLS certificate), for the drop reason. */
  let socketError = "";
  let pingTimer: ReturnType<typeof setInterval> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  const pending = new Map<string, PendingAck>();
  const chains = new Map<string, Promise<unknown>>();

  function open(): void {
    retryTimer = undefined;
    if (stopped) return;
    options.onState({ kind: "connecting" });
    const ws = new WebSocket(options.wsUrl);
    socket = ws;
    socketError = "";
    ws.onopen = () => {
      if (socket !== ws) return;
      authFailure = undefined;
      const reqId = newReqId(BOT_CMD.subscribe);
      transmit(ws, {
        cmd: BOT_CMD.subscribe,
        headers: { req_id: reqId },
        body: { bot_id: options.botId, secret: options.secret },
      })
        .then(() => {
          subscribed = true;
          attempts = 0;
          missedPings = 0;
          startPing(ws);
          log.info("WeCom bot connected");
          options.onState({ kind: "connected" });
        })
        .catch((error: unknown) => {
          if (socket !== ws) return;
          authFailure = subscribeRefusal(error);
          ws.close();
        });
    };
    ws.onmessage = (event) => {
      if (socket === ws) receive(ws, event.data);
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      dropped(`the connection closed${socketError ? `: ${socketError}` : ""}`);
    };
    ws.onerror = (event) => {
      // onclose follows; the reason is reported there.
      if (socket === ws) socketError = "message" in event ? String(event.message) : "";
    };
  }

  function dropped(reason: string): void {
    stopPing();
    subscribed = false;
    socket = undefined;
    rejectAll(new ClawboxError("CHANNEL_NETWORK", `WeCom bot: ${reason}`));
    if (stopped) return;
    if (authFailure) {
      log.warn(`WeCom bot: ${authFailure}; retrying in ${Math.round(authRetryMs / 1000)} s`);
      options.onState({ kind: "auth-failed", reason: authFailure, inMs: authRetryMs });
      retryTimer = setTimeout(open, authRetryMs);
      return;
    }
    attempts += 1;
    const inMs = Math.min(backoffMinMs * 2 ** (attempts - 1), backoffMaxMs);
    const clock = clockHint(reason);
    log.warn(`WeCom bot: ${reason}${clock ? ` (${clock})` : ""}; reconnecting in ${inMs} ms`);
    options.onState({ kind: "reconnecting", reason, inMs });
    retryTimer = setTimeout(open, inMs);
  }

  function receive(ws: WebSocket, data: unknown): void {
    let frame: InboundFrame;
    try {
      frame = inboundFrame.parse(JSON.parse(typeof data === "string" ? data : String(data)));
    } catch {
      log.warn("WeCom bot: dropped a frame that is not valid JSON of the expected shape");
      return;
    }
    const reqId = frame.headers.req_id;
    if (frame.cmd === BOT_CMD.msgCallback) {
      const body = botMessageBody.safeParse(frame.body);
      if (body.success) options.onMessage(reqId, body.data);
      else log.warn("WeCom bot: dropped a message callback of unexpected shape", { reqId });
      return;
    }
    if (frame.cmd === BOT_CMD.eventCallback) {
      const body = botEventBody.safeParse(frame.body);
      if (!body.success) {
        log.warn("WeCom bot: dropped an event callback of unexpected shape", { reqId });
      } else if (body.data.event.eventtype === "disconnected_event") {
        handOver(ws);
      } else {
        options.onEvent?.(reqId, body.data);
      }
      return;
    }
    if (frame.cmd === undefined) settle(frame);
  }

  function handOver(ws: WebSocket): void {
    log.warn("WeCom bot: a newer connection for this bot took over; not reconnecting");
    stopped = true;
    stopPing();
    socket = undefined;
    subscribed = false;
    rejectAll(new ClawboxError("CHANNEL_NETWORK", "WeCom bot: another connection took over"));
    ws.close();
    options.onState({ kind: "handed-over" });
  }

  function settle(frame: InboundFrame): void {
    const reqId = frame.headers.req_id;
    if (reqId.startsWith(`${BOT_CMD.ping}_`)) {
      missedPings = 0;
      return;
    }
    const waiting = pending.get(reqId);
    if (!waiting) return;
    pending.delete(reqId);
    clearTimeout(waiting.timer);
    if (frame.errcode) {
      waiting.reject(
        new ClawboxError(
          "CHANNEL_API",
          `WeCom bot: the platform refused a frame: ${frame.errmsg ?? ""} (errcode ${frame.errcode})`,
          { details: { errcode: frame.errcode } },
        ),
      );
    } else {
      waiting.resolve(frame);
    }
  }

  /** Sends a frame on `ws` and waits for the ack with the same req_id. */
  function transmit(ws: WebSocket, frame: OutboundFrame): Promise<InboundFrame> {
    return new Promise((resolve, reject) => {
      if (ws.readyState !== WebSocket.OPEN) {
        reject(new ClawboxError("CHANNEL_NETWORK", "WeCom bot: not connected"));
        return;
      }
      const reqId = frame.headers.req_id;
      const timer = setTimeout(() => {
        pending.delete(reqId);
        reject(
          new ClawboxError(
            "CHANNEL_NETWORK",
            `WeCom bot: no ack for ${frame.cmd} within ${ackTimeoutMs} ms`,
          ),
        );
      }, ackTimeoutMs);
      pending.set(reqId, { resolve, reject, timer });
      ws.send(JSON.stringify(frame));
    });
  }

  function startPing(ws: WebSocket): void {
    stopPing();
    pingTimer = setInterval(() => {
      if (missedPings >= MAX_MISSED_PINGS) {
        log.warn(`WeCom bot: ${missedPings} pings without an ack; the connection is dead`);
        stopPing();
        ws.close();
        return;
      }
      missedPings += 1;
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ cmd: BOT_CMD.ping, headers: { req_id: newReqId(BOT_CMD.ping) } }));
      }
    }, options.pingIntervalMs);
  }

  function stopPing(): void {
    if (pingTimer) clearInterval(pingTimer);
    pingTimer = undefined;
  }

  function rejectAll(error: Error): void {
    for (const [reqId, waiting] of pending) {
      clearTimeout(waiting.timer);
      pending.delete(reqId);
      waiting.reject(error);
    }
  }

  return {
    get connected() {
      return subscribed;
    },
    start() {
      if (!stopped) return;
      stopped = false;
      open();
    },
    stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = undefined;
      stopPing();
      const ws = socket;
      socket = undefined;
      subscribed = false;
      rejectAll(new ClawboxError("CHANNEL_NETWORK", "WeCom bot: stopped"));
      ws?.close();
      options.onState({ kind: "stopped" });
    },
    request(cmd, reqId, body) {
      const previous = chains.get(reqId) ?? Promise.resolve();
      const next = previous
        .catch(() => undefined)
        .then(() => {
          const ws = socket;
          if (!ws || !subscribed) {
            throw new ClawboxError("CHANNEL_NETWORK", "WeCom bot: not connected");
          }
          return transmit(ws, { cmd, headers: { req_id: reqId }, body });
        });
      chains.set(reqId, next);
      void next
        .catch(() => undefined)
        .finally(() => {
          if (chains.get(reqId) === next) chains.delete(reqId);
        });
      return next;
    },
  };
}

/** Plain words for a refused subscribe; undefined when it was not a refusal (e.g. no ack). */
function subscribeRefusal(error: unknown): string | undefined {
  if (!(error instanceof ClawboxError) || typeof error.details?.errcode !== "number") {
    return undefined;
  }
  return `the platform refused the bot id or secret (errcode ${error.details.errcode}); check channels.wecom.bot.botId and secret`;
}
