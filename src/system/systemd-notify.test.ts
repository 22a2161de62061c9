import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bindNotifySocket, type NotifySocket } from "../../test/fakes/notify-socket.ts";
import { createLogger } from "./logger.ts";
import { createSystemdNotifier, watchdogIntervalMs } from "./systemd-notify.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanups.splice(0)) fn();
});

function pathSocket(): NotifySocket {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-notify-"));
  const socket = bindNotifySocket(join(dir, "notify.sock"));
  cleanups.push(() => {
    socket.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return socket;
}

function abstractSocket(): NotifySocket {
  const socket = bindNotifySocket(
    `@clawbox-test-${process.pid}-${Math.random().toString(36).slice(2)}`,
  );
  cleanups.push(() => socket.close());
  return socket;
}

describe("systemd notifier", () => {
  it("sends READY=1 with a status, STATUS= and STOPPING=1 to a path socket", async () => {
    const socket = pathSocket();
    const notifier = createSystemdNotifier({ NOTIFY_SOCKET: socket.path });
    expect(notifier.enabled).toBe(true);
    notifier.ready("listening on 127.0.0.1:18790");
    notifier.status("2 channels up\nsecond line");
    notifier.stopping();
    await socket.waitFor("STOPPING=1");
    expect(socket.messages).toEqual([
      "READY=1\nSTATUS=listening on 127.0.0.1:18790",
      "STATUS=2 channels up second line",
      "STOPPING=1",
    ]);
  });

  it("reaches an abstract socket named with a leading @", async () => {
    const socket = abstractSocket();
    const notifier = createSystemdNotifier({ NOTIFY_SOCKET: socket.path });
    notifier.ready();
    expect(await socket.waitFor("READY=1")).toBe("READY=1");
  });

  it("pings WATCHDOG=1 at half of WATCHDOG_USEC until stopped", async () => {
    const socket = abstractSocket();
    const notifier = createSystemdNotifier({ NOTIFY_SOCKET: socket.path, WATCHDOG_USEC: "40000" });
    const stop = notifier.startWatchdog();
    await socket.waitFor("WATCHDOG=1");
    await new Promise((r) => setTimeout(r, 100));
    stop();
    await new Promise((r) => setTimeout(r, 20));
    const pings = socket.messages.filter((m) => m === "WATCHDOG=1").length;
    expect(pings).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 80));
    expect(socket.messages.filter((m) => m === "WATCHDOG=1").length).toBe(pings);
  });

  it("derives the ping interval from WATCHDOG_USEC and WATCHDOG_PID", () => {
    expect(watchdogIntervalMs({ WATCHDOG_USEC: "30000000" })).toBe(15000);
    expect(watchdogIntervalMs({})).toBeUndefined();
    expect(watchdogIntervalMs({ WATCHDOG_USEC: "abc" })).toBeUndefined();
    expect(
      watchdogIntervalMs({ WATCHDOG_USEC: "30000000", WATCHDOG_PID: String(process.pid + 1) }),
    ).toBeUndefined();
    expect(
      watchdogIntervalMs({ WATCHDOG_USEC: "30000000", WATCHDOG_PID: String(process.pid) }),
    ).toBe(15000);
  });

  it("does nothing without NOTIFY_SOCKET", () => {
    const notifier = createSystemdNotifier({ WATCHDOG_USEC: "1000" });
    expect(notifier.enabled).toBe(false);
    notifier.ready("x");
    notifier.status("y");
    notifier.stopping();
    const stop = notifier.startWatchdog();
    expect(typeof stop).toBe("function");
    stop();
  });

  it("logs an unreachable socket once and never throws", () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) });
    const notifier = createSystemdNotifier(
      { NOTIFY_SOCKET: join(tmpdir(), `clawbox-missing-${process.pid}.sock`) },
      { logger },
    );
    expect(() => {
      notifier.ready();
      notifier.status("still running");
      notifier.stopping();
    }).not.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("cannot notify systemd");
    expect(lines[0]).toContain("errno 2");
  });

  it("rejects a relative socket path as disabled", () => {
    const notifier = createSystemdNotifier(
      { NOTIFY_SOCKET: "relative.sock" },
      { logger: createLogger({ write: () => {} }) },
    );
    expect(notifier.enabled).toBe(false);
    expect(() => notifier.ready()).not.toThrow();
  });
});
