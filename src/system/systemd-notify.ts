/**
 * systemd's notify protocol for `Type=notify` units: READY=1 once the service is up,
 * STATUS= lines, WATCHDOG=1 pings at half of `WATCHDOG_USEC` from the event loop (so a
 * blocked loop stops them and systemd restarts the service), STOPPING=1 on shutdown.
 * Without `NOTIFY_SOCKET` everything is a no-op. Nothing here ever throws: a failure
 * to notify is logged once and otherwise ignored — the service keeps running.
 */
import type { Logger } from "./logger.ts";
import { createLogger } from "./logger.ts";
import { sendUnixDatagram, unixAddress } from "./unix-datagram.ts";

export interface SystemdNotifier {
  /** True when `NOTIFY_SOCKET` names a usable socket. */
  readonly enabled: boolean;
  /** READY=1 (and STATUS= when given): the service is up. */
  ready(status?: string): void;
  status(text: string): void;
  /** STOPPING=1: shutdown has begun. */
  stopping(): void;
  /**
   * Starts WATCHDOG=1 pings at half of `WATCHDOG_USEC` (a no-op without it, or when
   * `WATCHDOG_PID` names another process). Returns a function that stops them.
   */
  startWatchdog(): () => void;
}

export interface SystemdNotifierOptions {
  logger?: Logger;
  /** Sends one datagram; replaceable in tests of the watchdog arithmetic. */
  send?: typeof sendUnixDatagram;
}

/** The ping interval in ms, or undefined when no watchdog applies to this process. */
export function watchdogIntervalMs(env: Record<string, string | undefined>): number | undefined {
  const usec = Number(env.WATCHDOG_USEC);
  if (!env.WATCHDOG_USEC || !Number.isFinite(usec) || usec <= 0) return undefined;
  if (env.WATCHDOG_PID && Number(env.WATCHDOG_PID) !== process.pid) return undefined;
  return Math.max(1, Math.floor(usec / 2000));
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ").slice(0, 400);
}

export function createSystemdNotifier(
  env: Record<string, string | undefined> = process.env,
  options: SystemdNotifierOptions = {},
): SystemdNotifier {
  const socket = env.NOTIFY_SOCKET;
  const send = options.send ?? sendUnixDatagram;
  const enabled = Boolean(socket && unixAddress(socket));
  let warned = false;

  const notify = (payload: string): void => {
    if (!socket) return;
    try {
      const result = send(socket, payload);
      if (result.ok || warned) return;
      warned = true;
      const logger = options.logger ?? createLogger({ scope: "systemd" });
      logger.warn("cannot notify systemd (further failures not logged)", {
        socket,
        reason: result.reason,
      });
    } catch {
      // sendUnixDatagram never throws; a replaced `send` must not take the service down.
    }
  };

  return {
    enabled,
    ready: (status) => notify(status ? `READY=1\nSTATUS=${oneLine(status)}` : "READY=1"),
    status: (text) => notify(`STATUS=${oneLine(text)}`),
    stopping: () => notify("STOPPING=1"),
    startWatchdog() {
      const interval = watchdogIntervalMs(env);
      if (!socket || interval === undefined) return () => {};
      const timer = setInterval(() => notify("WATCHDOG=1"), interval);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
