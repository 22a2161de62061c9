/**
 * Nobody but the box listens on the console's port or its loopback twin
 * (docs/SECURITY.md, "The console's port"). A listener of another user on
 * [::1]:PORT, while the box is on 127.0.0.1:PORT, receives the browser's
 * `http://localhost:PORT` in the console's own origin. The box's own sockets are those
 * of the home's owner (the service's user) and of root (systemd's `clawbox.socket`); a
 * process of those users that this user can see must also be the box (`clawbox …` or
 * `… src/cli/main.ts …`) or systemd (pid 1).
 */
import { statSync } from "node:fs";
import {
  addressesToHold,
  blocks,
  describePortHolder,
  hostForUrl,
  type PortHolder,
  portHolders,
} from "../system/index.ts";
import type { CheckResult } from "./doctor-check.ts";

export interface ConsolePortInput {
  host: string;
  port: number;
  /** The home: its owner is the service's user. */
  home: string;
  /** Listeners on a port (tests pass their own). */
  holders?: (port: number) => PortHolder[];
}

/** The box itself (compiled or from source) or systemd holding `clawbox.socket`. */
function isTheBox(holder: PortHolder): boolean {
  if (holder.pid === 1) return true;
  return /(^|\/)clawbox(\s|$)|\/src\/cli\/main\.ts(\s|$)/.test(holder.commandLine ?? "");
}

export function checkConsolePort(input: ConsolePortInput): CheckResult {
  const name = "console port";
  const addresses = addressesToHold(input.host);
  const where = addresses.map((a) => `${hostForUrl(a)}:${input.port}`).join(" and ");
  let serviceUid: number | undefined;
  try {
    serviceUid = statSync(input.home).uid;
  } catch {
    // No home yet: only root's sockets count as the box's.
  }
  const trusted = (h: PortHolder) =>
    (h.uid === 0 || h.uid === serviceUid) && (h.pid === undefined || isTheBox(h));
  const holders = (input.holders ?? portHolders)(input.port).filter((h) =>
    addresses.some((a) => blocks(h.address, a)),
  );
  const strangers = holders.filter((h) => !trusted(h));
  if (strangers.length > 0) {
    return {
      name,
      status: "fail",
      message: `another process listens on the console's port: ${strangers
        .map((h) => `${describePortHolder(h)} on ${hostForUrl(h.address)}:${h.port}`)
        .join("; ")}; a browser's http://localhost:${input.port} may reach it instead of the box`,
      fix: `stop that process (or find out who runs it); open the console only as http://127.0.0.1:${input.port}`,
    };
  }
  return {
    name,
    status: "ok",
    message:
      holders.length > 0
        ? `${where}: held by the box only`
        : `${where}: nobody listens (the box is not running)`,
  };
}
