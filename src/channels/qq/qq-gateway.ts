/**
 * The QQ WebSocket gateway client (bot docs, "WebSocket方式"): Hello (op 10) → Identify
 * (op 2, intents with 1<<25) or, when a session is known, Resume (op 6, session_id and
 * the last seq); heartbeats (op 1) with the last seq and a reconnect when an ACK (op 11)
 * is missing; op 7 → reconnect and resume; op 9 → forget the session and Identify again.
 * Dispatches are handled one at a time and the seq advances only after a message is
 * stored, so a resume replays anything not yet stored. Reconnects back off with jitter.
 * A malformed frame is logged and skipped.
 */

import { errorMessage } from "../../errors/index.ts";
import { clockHint } from "../../system/index.ts";
import type { AccessTokenCache } from "../access-token-cache.ts";
import type { ChannelHost, InboundMessage } from "../channel.ts";
import type { QqApi } from "./qq-api.ts";
import { frameSchema, messageOfEvent, type QqFrame } from "./qq-events.ts";

/** GROUP_AND_C2C_EVENT: C2C_MESSAGE_CREATE and GROUP_AT_MESSAGE_CREATE. */
export const QQ_INTENTS = 1 << 25;
const MAX_BACKOFF_MS = 60_000;
/** Close codes after which the session cannot be resumed. */
const SESSION_GONE = new Set([4006, 4007, 4009]);

export interface QqGatewayDeps {
  api: QqApi;
  tokens: AccessTokenCache;
  host: ChannelHost;
  /** Stores the message; resolves when it is stored. */
  onMessage(message: InboundMessage): Promise<unknown>;
  /** First reconnect delay (ms); doubles per failure up to 60 s. */
  baseBackoffMs?: number;
}

export class QqGateway {
  private socket: WebSocket | undefined;
  private sessionId: string | undefined;
  private lastSeq: number | null = null;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private acked = true;
  private failures = 0;
  private stopped = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** The socket's last error (e.g. a refused TLS certificate), for the close reason. */
  private socketError = "";

  constructor(private readonly deps: QqGatewayDeps) {}

  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.stopHeartbeat();
    this.socket?.close(1000, "stopping");
    await this.chain;
  }

  private get log() {
    return this.deps.host.logger;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    let url: string;
    try {
      url = await this.deps.api.gatewayUrl();
    } catch (error) {
      this.fail(`cannot get the gateway URL: ${errorMessage(error)}`);
      return;
    }
    if (this.stopped) return;
    const socket = new WebSocket(url);
    this.socket = socket;
    this.socketError = "";
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
      this.onFrame(typeof event.data === "string" ? event.data : String(event.data));
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.stopHeartbeat();
      if (SESSION_GONE.has(event.code)) this.forgetSession();
      if (event.code === 4004) this.deps.tokens.invalidate();
      const why = event.reason || this.socketError;
      this.fail(`gateway closed (code ${event.code}${why ? `: ${why}` : ""})`);
    });
    socket.addEventListener("error", (event) => {
      this.socketError = "message" in event ? String(event.message) : "";
      this.log.debug("gateway socket error", { error: this.socketError });
    });
  }

  private fail(reason: string): void {
    if (this.stopped) return;
    this.failures += 1;
    const delay = Math.min(
      MAX_BACKOFF_MS,
      (this.deps.baseBackoffMs ?? 1000) * 2 ** Math.min(this.failures - 1, 10),
    );
    const jittered = Math.round(delay * (0.5 + Math.random() / 2));
    const clock = clockHint(reason);
    this.deps.host.setState(
      this.sessionId ? "resuming" : "error",
      `${reason}${clock ? ` (${clock})` : ""}; reconnecting in ${jittered} ms`,
    );
    this.log.warn(clock ?? "gateway disconnected", { reason, retryInMs: jittered });
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => void this.connect(), jittered);
  }

  /** Closes the socket on purpose (missing ACK, op 7); the close handler reconnects. */
  private reconnect(reason: string): void {
    const socket = this.socket;
    this.socket = undefined;
    this.stopHeartbeat();
    socket?.close(4000, reason.slice(0, 100));
    this.fail(reason);
  }

  private forgetSession(): void {
    this.sessionId = undefined;
    this.lastSeq = null;
  }

  private send(frame: Record<string, unknown>): void {
    this.socket?.send(JSON.stringify(frame));
  }

  private onFrame(raw: string): void {
    let frame: QqFrame;
    try {
      frame = frameSchema.parse(JSON.parse(raw));
    } catch {
      this.log.warn("malformed gateway frame skipped", { bytes: raw.length });
      return;
    }
    this.deps.host.touch();
    switch (frame.op) {
      case 10:
        this.chain = this.chain.then(() => this.onHello(frame));
        return;
      case 11:
        this.acked = true;
        return;
      case 1:
        this.send({ op: 1, d: this.lastSeq });
        return;
      case 7:
        this.chain = this.chain.then(() => this.reconnect("server asked to reconnect (op 7)"));
        return;
      case 9:
        this.chain = this.chain.then(() => this.onInvalidSession());
        return;
      case 0: {
        const socket = this.socket;
        // Frames queued behind a reconnect belong to a dead connection: the resume replays them.
        this.chain = this.chain.then(() =>
          this.socket === socket ? this.onDispatch(frame) : undefined,
        );
        return;
      }
      default:
        this.log.debug("gateway op ignored", { op: frame.op });
    }
  }

  private async onHello(frame: QqFrame): Promise<void> {
    const interval = Number(
      (frame.d as { heartbeat_interval?: unknown } | undefined)?.heartbeat_interval,
    );
    this.startHeartbeat(Number.isFinite(interval) && interval > 0 ? interval : 45_000);
    const token = `QQBot ${await this.deps.tokens.get()}`;
    if (this.sessionId) {
      this.deps.host.setState("resuming", "resuming the gateway session");
      this.send({ op: 6, d: { token, session_id: this.sessionId, seq: this.lastSeq ?? 0 } });
      return;
    }
    this.identify(token);
  }

  private identify(token: string): void {
    this.send({
      op: 2,
      d: {
        token,
        intents: QQ_INTENTS,
        shard: [0, 1],
        properties: { $os: "linux", $browser: "clawbox", $device: "clawbox" },
      },
    });
  }

  private async onInvalidSession(): Promise<void> {
    this.forgetSession();
    this.log.info("gateway session invalid (op 9): identifying again");
    this.identify(`QQBot ${await this.deps.tokens.get()}`);
  }

  private async onDispatch(frame: QqFrame): Promise<void> {
    if (frame.t === "READY") {
      const sessionId = (frame.d as { session_id?: unknown } | undefined)?.session_id;
      if (typeof sessionId === "string") this.sessionId = sessionId;
      this.failures = 0;
      this.deps.host.setState("connected");
    } else if (frame.t === "RESUMED") {
      this.failures = 0;
      this.deps.host.setState("connected");
    } else {
      let message: InboundMessage | undefined;
      try {
        message = messageOfEvent(frame.t, frame.d);
      } catch (error) {
        this.log.warn("malformed message event skipped", {
          event: frame.t,
          error: error instanceof Error ? error.message.slice(0, 300) : String(error),
        });
      }
      if (message) {
        try {
          await this.deps.onMessage(message);
        } catch (error) {
          // Not stored: keep the seq where it was and resume, so the platform replays it.
          this.log.error("message not stored; resuming so it is replayed", {
            error: errorMessage(error),
          });
          this.reconnect("an inbound message could not be stored");
          return;
        }
      }
    }
    if (typeof frame.s === "number") this.lastSeq = frame.s;
  }

  private startHeartbeat(intervalMs: number): void {
    this.stopHeartbeat();
    this.acked = true;
    this.heartbeat = setInterval(() => {
      if (!this.acked) {
        this.reconnect("no heartbeat ACK from the gateway");
        return;
      }
      this.acked = false;
      this.send({ op: 1, d: this.lastSeq });
    }, intervalMs);
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
