/**
 * The Wyoming server in `clawbox run` (issue 40): Home Assistant's Assist connects once
 * per turn, sends `transcript` and waits for `handled` (homeassistant/components/wyoming/
 * conversation.py), or sends `describe` and waits for `info` within one second
 * (data.py `load_wyoming_info`). Wyoming has no authentication, so the peer's address
 * is the only gate (`wyoming.allowFrom`); whatever an admitted peer sends, memory stays
 * bounded and other connections are unaffected:
 * - at most MAX_CONNECTIONS open at once; a connection beyond it gets an `error` and is closed;
 * - the frame reader's limits (64 KiB header line, data block, payload);
 * - an event must be complete within FRAME_TIMEOUT_MS of its first byte (a slow sender is
 *   closed), and a connection with nothing in flight closes after IDLE_TIMEOUT_MS;
 * - one transcript at a time per connection;
 * - our writes wait for the peer to read (`drain`), so a peer that never reads holds at
 *   most one reply.
 */
import type { Socket, TCPSocketListener } from "bun";
import type { Agent } from "../agent/index.ts";
import type { WyomingConfig } from "../config/index.ts";
import { ClawboxError, errorMessage, toClawboxError } from "../errors/index.ts";
import type { SessionResolver } from "../sessions/index.ts";
import type { Logger } from "../system/index.ts";
import { peerAllowed } from "./allow-from.ts";
import { createFrameReader, type FrameLimits, type FrameReader } from "./frame-reader.ts";
import { infoEvent } from "./info-event.ts";
import { answerTranscript } from "./voice-turn.ts";
import { encodeEvent, errorEvent, type WyomingEvent } from "./wyoming-event.ts";
import {
  MAX_ROOMS_SHOWN,
  type Outcome,
  type WyomingStatus,
  writeWyomingStatus,
} from "./wyoming-status.ts";

export const MAX_CONNECTIONS = 32;
export const FRAME_TIMEOUT_MS = 10_000;
export const IDLE_TIMEOUT_MS = 60_000;
export const FRAME_LIMITS: FrameLimits = {
  maxHeaderBytes: 64 * 1024,
  maxDataBytes: 64 * 1024,
  maxPayloadBytes: 64 * 1024,
};
/** The status file is written at most this often. */
const STATUS_WRITE_MS = 1000;
/** At most one log line this often for peers refused by `wyoming.allowFrom`. */
const REFUSAL_LOG_MS = 60_000;

export interface WyomingServerDeps {
  config: Pick<WyomingConfig, "host" | "port" | "allowFrom">;
  agent: Pick<Agent, "chat">;
  sessions: SessionResolver;
  logger: Logger;
  version: string;
  /** The name HA shows for the agent (and the zeroconf instance name). */
  name: string;
  statusFile: string;
}

export interface WyomingServer {
  readonly port: number;
  status(): WyomingStatus;
  /** Records how announcing went ("announced", "off", or why not). */
  setZeroconf(state: string): void;
  /** Accepts no new connection; open ones (a turn being answered) go on (the stop's drain). */
  stopListening(): void;
  /** Stops listening, aborts running turns and closes every connection. */
  close(): Promise<void>;
}

interface Connection {
  reader: FrameReader;
  /** Bytes waiting for the peer to read. */
  pending: Uint8Array[];
  endAfterFlush: boolean;
  turn?: AbortController;
  frameTimer?: ReturnType<typeof setTimeout>;
  idleTimer?: ReturnType<typeof setTimeout>;
  closed: boolean;
}

export function startWyomingServer(deps: WyomingServerDeps): WyomingServer {
  const { logger } = deps;
  const open = new Set<Socket<Connection>>();
  const status: WyomingStatus = {
    pid: process.pid,
    listening: "",
    state: "listening",
    announcedName: deps.name,
    zeroconf: "off",
    rooms: [],
    connections: { accepted: 0, refused: 0, errors: 0 },
    updatedAt: Date.now(),
  };
  let statusTimer: ReturnType<typeof setTimeout> | undefined;
  const saveNow = () => {
    statusTimer = undefined;
    status.updatedAt = Date.now();
    try {
      writeWyomingStatus(deps.statusFile, status);
    } catch (error) {
      logger.warn("could not write the Wyoming status file", { error: errorMessage(error) });
    }
  };
  const save = () => {
    statusTimer ??= setTimeout(saveNow, STATUS_WRITE_MS);
  };

  // A peer outside allowFrom needs no permission to connect: one log line a minute, with
  // how many were refused since, so a flood of attempts cannot flood the journal.
  let refusalLoggedAt = Number.NEGATIVE_INFINITY;
  let refusalsUnlogged = 0;
  const logRefusal = (peer: string) => {
    const now = Date.now();
    if (now - refusalLoggedAt < REFUSAL_LOG_MS) {
      refusalsUnlogged++;
      return;
    }
    logger.warn("wyoming: refused a peer outside wyoming.allowFrom", {
      peer,
      ...(refusalsUnlogged > 0 ? { refusedSinceLastLine: refusalsUnlogged } : {}),
    });
    refusalLoggedAt = now;
    refusalsUnlogged = 0;
  };

  const flush = (socket: Socket<Connection>) => {
    const conn = socket.data;
    while (conn.pending.length > 0) {
      const next = conn.pending[0] as Uint8Array;
      const written = socket.write(next);
      if (written < next.byteLength) {
        conn.pending[0] = next.subarray(Math.max(0, written));
        return;
      }
      conn.pending.shift();
    }
    if (conn.endAfterFlush) socket.end();
  };

  const send = (socket: Socket<Connection>, event: WyomingEvent, end = false) => {
    const conn = socket.data;
    if (conn.closed) return;
    conn.pending.push(encodeEvent(event));
    if (end) conn.endAfterFlush = true;
    flush(socket);
  };

  const clearTimers = (conn: Connection) => {
    clearTimeout(conn.frameTimer);
    clearTimeout(conn.idleTimer);
    conn.frameTimer = undefined;
    conn.idleTimer = undefined;
  };

  /** Idle: nothing half-read and no turn running. */
  const armIdle = (socket: Socket<Connection>) => {
    const conn = socket.data;
    clearTimeout(conn.idleTimer);
    conn.idleTimer = undefined;
    if (conn.turn || conn.reader.partial() || conn.closed) return;
    conn.idleTimer = setTimeout(() => socket.end(), IDLE_TIMEOUT_MS);
  };

  const fail = (socket: Socket<Connection>, code: string, text: string) => {
    status.connections.errors++;
    save();
    logger.info("wyoming: closed a connection after bad input", {
      code,
      detail: text.slice(0, 200),
    });
    send(socket, errorEvent(code, text), true);
  };

  const record = (room: string, outcome: Outcome, detail: string | undefined) => {
    const at = Date.now();
    status.lastRequest = { at, room, outcome, ...(detail ? { detail: detail.slice(0, 200) } : {}) };
    if (room) {
      const seen = status.rooms.find((r) => r.room === room);
      const turns = (seen?.turns ?? 0) + 1;
      status.rooms = [
        { room, lastAt: at, turns },
        ...status.rooms.filter((r) => r.room !== room),
      ].slice(0, MAX_ROOMS_SHOWN);
    }
    save();
  };

  const runTranscript = (socket: Socket<Connection>, data: Record<string, unknown>) => {
    const conn = socket.data;
    const turn = new AbortController();
    conn.turn = turn;
    armIdle(socket);
    void answerTranscript(data, deps, turn.signal)
      .then((result) => {
        record(result.room, result.outcome, result.detail);
        logger.info("wyoming: transcript answered", { room: result.room, outcome: result.outcome });
        send(socket, result.event);
      })
      .catch((error: unknown) => {
        // answerTranscript's agent never rejects; this guards the code around it.
        const detail = toClawboxError(error).message;
        record("", "error", detail);
        logger.error("wyoming: transcript failed", { error: detail });
        send(socket, errorEvent("internal", "the box could not answer; see its log"));
      })
      .finally(() => {
        conn.turn = undefined;
        armIdle(socket);
      });
  };

  const handle = (socket: Socket<Connection>, type: string, data: Record<string, unknown>) => {
    const conn = socket.data;
    switch (type) {
      case "describe":
        send(socket, infoEvent({ name: deps.name, version: deps.version }));
        return;
      case "ping":
        send(socket, {
          type: "pong",
          data: { text: typeof data.text === "string" ? data.text : null },
        });
        return;
      case "transcript":
        if (conn.turn) {
          send(
            socket,
            errorEvent("busy", "one transcript at a time on a connection: wait for its answer"),
          );
          return;
        }
        runTranscript(socket, data);
        return;
      default:
        send(
          socket,
          errorEvent(
            "unknown-event",
            `"${type.slice(0, 64)}" is not an event this server handles (it answers describe, transcript and ping)`,
          ),
        );
    }
  };

  let listener: TCPSocketListener<Connection>;
  try {
    listener = Bun.listen<Connection>({
      hostname: deps.config.host,
      port: deps.config.port,
      socket: {
        open(socket) {
          socket.data = {
            reader: createFrameReader(FRAME_LIMITS),
            pending: [],
            endAfterFlush: false,
            closed: false,
          };
          if (!peerAllowed(socket.remoteAddress, deps.config.allowFrom)) {
            status.connections.refused++;
            save();
            logRefusal(socket.remoteAddress);
            socket.data.closed = true;
            socket.end();
            return;
          }
          if (open.size >= MAX_CONNECTIONS) {
            status.connections.refused++;
            save();
            send(
              socket,
              errorEvent("busy", `${MAX_CONNECTIONS} connections are open already; try again`),
              true,
            );
            return;
          }
          open.add(socket);
          status.connections.accepted++;
          save();
          armIdle(socket);
        },
        data(socket, chunk) {
          const conn = socket.data;
          if (conn.closed || conn.endAfterFlush || !open.has(socket)) return;
          const wasPartial = conn.reader.partial();
          const result = conn.reader.push(chunk);
          for (const event of result.events) handle(socket, event.type, event.data);
          if (result.error) {
            clearTimers(conn);
            fail(socket, result.error.code, result.error.message);
            return;
          }
          if (!conn.reader.partial()) {
            clearTimeout(conn.frameTimer);
            conn.frameTimer = undefined;
          } else if (!wasPartial || result.events.length > 0 || !conn.frameTimer) {
            // A new event began: it has FRAME_TIMEOUT_MS to arrive whole.
            clearTimeout(conn.frameTimer);
            conn.frameTimer = setTimeout(
              () =>
                fail(
                  socket,
                  "timeout",
                  `an event did not arrive whole within ${FRAME_TIMEOUT_MS / 1000} s (a length that claims more than was sent?)`,
                ),
              FRAME_TIMEOUT_MS,
            );
          }
          armIdle(socket);
        },
        drain(socket) {
          flush(socket);
        },
        close(socket) {
          const conn = socket.data;
          if (!conn) return;
          conn.closed = true;
          clearTimers(conn);
          conn.pending = [];
          // Nobody is left to hear the answer.
          conn.turn?.abort();
          open.delete(socket);
        },
        error(socket, error) {
          logger.warn("wyoming: connection error", { error: errorMessage(error) });
          socket.data?.turn?.abort();
        },
      },
    });
  } catch (error) {
    throw new ClawboxError(
      "CONFIG_INVALID",
      `wyoming: cannot listen on ${deps.config.host}:${deps.config.port}: ${errorMessage(error)}`,
      { hint: "choose another wyoming.port, or stop what uses it" },
    );
  }
  let listening = true;
  status.listening = `${deps.config.host}:${listener.port}`;
  saveNow();

  return {
    port: listener.port,
    status: () => status,
    setZeroconf(state) {
      status.zeroconf = state;
      save();
    },
    stopListening() {
      if (!listening) return;
      listening = false;
      listener.stop(false);
    },
    async close() {
      listening = false;
      listener.stop(true);
      for (const socket of open) {
        socket.data.turn?.abort();
        socket.end();
      }
      open.clear();
      clearTimeout(statusTimer);
      status.state = "stopped";
      saveNow();
    },
  };
}
