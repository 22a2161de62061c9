/**
 * The Wyoming server as `clawbox channels status`, `doctor` and the console's Channels
 * page see it: the config (enabled, address, allowed peers) and the running service's
 * status file (rooms seen, last request and its outcome, refused connections). Works
 * whether or not `clawbox run` is running.
 */
import type { WyomingConfig } from "../config/index.ts";
import { isLoopbackHost } from "../config/index.ts";
import type { CheckResult } from "../doctor/index.ts";
import { readWyomingStatus, type WyomingStatus, wyomingStatusFile } from "./wyoming-status.ts";

export interface WyomingReport {
  enabled: boolean;
  host: string;
  port: number;
  allowFrom: string[];
  /** Announcing over mDNS is on (the config's value, or its default for the host). */
  zeroconf: boolean;
  state: "disabled" | "not running" | "listening";
  live?: WyomingStatus;
}

/** `wyoming.zeroconf`, defaulting to on when the server listens beyond loopback. */
export function zeroconfWanted(config: Pick<WyomingConfig, "host" | "zeroconf">): boolean {
  return config.zeroconf ?? !isLoopbackHost(config.host);
}

export function wyomingReport(config: WyomingConfig, home: string): WyomingReport {
  const base = {
    enabled: config.enabled,
    host: config.host,
    port: config.port,
    allowFrom: config.allowFrom ?? [],
    zeroconf: zeroconfWanted(config),
  };
  if (!config.enabled) return { ...base, state: "disabled" };
  const live = readWyomingStatus(wyomingStatusFile(home));
  if (!live?.running) return { ...base, state: "not running" };
  return { ...base, state: "listening", live: live.status };
}

/** The server as one row of `clawbox channels status` (the channels' row shape). */
export function wyomingChannelStatus(
  config: WyomingConfig,
  home: string,
): {
  channel: "wyoming";
  enabled: boolean;
  state: "connected" | "disabled" | "stopped";
  reason?: string;
  lastEventAt?: number;
  inbox: Record<string, number>;
  outbox: Record<string, number>;
} {
  const report = wyomingReport(config, home);
  const base = { channel: "wyoming" as const, enabled: report.enabled, inbox: {}, outbox: {} };
  if (report.state === "disabled")
    return { ...base, state: "disabled", reason: "wyoming.enabled is false" };
  if (!report.live) return { ...base, state: "stopped", reason: "clawbox run is not running" };
  const live = report.live;
  const rooms = live.rooms.length;
  const last = live.lastRequest;
  const nonZero = (counts: Record<string, number>) =>
    Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
  return {
    ...base,
    state: "connected",
    reason: [
      `Home Assistant voice on ${live.listening} as "${live.announcedName}" (mDNS: ${live.zeroconf})`,
      rooms === 0
        ? "no rooms seen yet"
        : `${rooms} room${rooms === 1 ? "" : "s"} seen: ${live.rooms
            .slice(0, 5)
            .map((r) => r.room)
            .join(", ")}${rooms > 5 ? ", …" : ""}`,
      last
        ? `last request ${new Date(last.at).toISOString().slice(0, 16).replace("T", " ")} UTC from ${last.room || "no room"}: ${last.outcome}${last.detail ? ` (${last.detail})` : ""}`
        : "no request yet",
    ].join("; "),
    ...(last ? { lastEventAt: last.at } : {}),
    inbox: nonZero({
      turns: live.rooms.reduce((sum, r) => sum + r.turns, 0),
      refused: live.connections.refused,
      "bad input": live.connections.errors,
    }),
  };
}

/** `clawbox doctor` lines for the Wyoming server. */
export function wyomingDoctorChecks(config: WyomingConfig, home: string): CheckResult[] {
  const report = wyomingReport(config, home);
  if (!report.enabled)
    return [{ name: "wyoming", status: "ok", message: "disabled (Home Assistant voice is off)" }];
  const checks: CheckResult[] = [];
  const everyone = report.allowFrom.filter((a) => /\/0$/.test(a));
  if (everyone.length > 0)
    checks.push({
      name: "wyoming allowFrom",
      status: "warn",
      message: `${everyone.join(", ")} lets any address talk to the box as the household (Wyoming has no password)`,
      fix: 'list Home Assistant\'s address instead, e.g. wyoming.allowFrom ["192.168.1.10"]',
    });
  if (!report.live) {
    checks.push({
      name: "wyoming",
      status: "warn",
      message: "clawbox run is not running, so Home Assistant cannot reach the voice agent",
      fix: "start the service: systemctl start clawbox",
    });
    return checks;
  }
  const live = report.live;
  checks.push({
    name: "wyoming",
    status: "ok",
    message: `listening on ${live.listening} as "${live.announcedName}"; ${live.rooms.length} room(s) seen${live.lastRequest ? `; last request ${live.lastRequest.outcome}` : ""}`,
  });
  if (report.zeroconf && live.zeroconf !== "announced")
    checks.push({
      name: "wyoming zeroconf",
      status: "warn",
      message: `not announced over mDNS: ${live.zeroconf}`,
      fix: `add the box in Home Assistant by hand: Settings → Devices & services → Add integration → Wyoming Protocol, host and port ${report.port}`,
    });
  return checks;
}
