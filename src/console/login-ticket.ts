/**
 * One-time login links (`/console/login?ticket=…`), printed by `clawbox run` and by
 * `clawbox console url`. A ticket is signed (HMAC-SHA256) with the login secret, so only
 * someone who can read `<home>/console-secret` (the service's user, root) can make one;
 * the service needs no shared state with the CLI process that made it. Guarantees: a
 * ticket opens one browser session, once (used nonces are remembered for its lifetime);
 * it expires after TICKET_TTL_MS; a ticket made before this service started is refused,
 * so a link seen in an old log is dead after a restart. Time is the boot clock (shared by
 * every process of one boot, unmoved when NTP fixes a Pi's clock), else the wall clock.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { type BootClock, systemBootClock } from "../system/index.ts";

export const TICKET_TTL_MS = 10 * 60 * 1000;
const VERSION = "t1";

export interface TicketClock {
  bootId: string | undefined;
  /** Milliseconds on the clock tickets are dated with (boot clock, else wall clock). */
  nowMs(): number;
}

export function ticketClock(
  boot: BootClock = systemBootClock,
  wall: () => number = Date.now,
): TicketClock {
  return boot.bootId
    ? { bootId: boot.bootId, nowMs: () => boot.uptimeMs() }
    : { bootId: undefined, nowMs: wall };
}

const sign = (secret: string, payload: string): Buffer =>
  createHmac("sha256", secret).update(`clawbox-console-login\0${payload}`).digest();

/** A fresh ticket for a one-time login link. */
export function issueTicket(secret: string, clock: TicketClock = ticketClock()): string {
  const payload = [
    VERSION,
    clock.bootId ?? "-",
    String(clock.nowMs()),
    randomBytes(16).toString("base64url"),
  ].join(".");
  return `${payload}.${sign(secret, payload).toString("base64url")}`;
}

/** The link a person opens to log in: the console's address plus a fresh ticket. */
export function loginLink(base: string, ticket: string): string {
  return `${base.replace(/\/+$/, "")}/console/login?ticket=${ticket}`;
}

export type TicketCheck = { ok: true } | { ok: false; reason: string };

/** Checks and uses up tickets for one running service. */
export class TicketVerifier {
  private readonly used = new Map<string, number>();
  private readonly startedAt: number;

  constructor(
    private readonly secrets: readonly string[],
    private readonly clock: TicketClock = ticketClock(),
  ) {
    this.startedAt = clock.nowMs();
  }

  redeem(ticket: string): TicketCheck {
    if (ticket.length > 200) return { ok: false, reason: "malformed" };
    const parts = ticket.split(".");
    if (parts.length !== 5 || parts[0] !== VERSION) return { ok: false, reason: "malformed" };
    const [, bootId, issuedText, nonce, mac] = parts as [string, string, string, string, string];
    const payload = parts.slice(0, 4).join(".");
    const given = Buffer.from(mac, "base64url");
    const signed = this.secrets.some((secret) => {
      const expected = sign(secret, payload);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!signed) return { ok: false, reason: "bad signature" };
    if ((this.clock.bootId ?? "-") !== bootId) return { ok: false, reason: "from another boot" };
    const issued = Number(issuedText);
    const now = this.clock.nowMs();
    // The clocks have 10 ms steps: allow a little slack around this service's start.
    if (!Number.isFinite(issued) || issued < this.startedAt - 1000)
      return { ok: false, reason: "made before this service started" };
    if (issued > now + 1000 || now - issued > TICKET_TTL_MS)
      return { ok: false, reason: "expired" };
    for (const [seen, at] of this.used) if (now - at > TICKET_TTL_MS * 2) this.used.delete(seen);
    if (this.used.has(nonce)) return { ok: false, reason: "already used" };
    this.used.set(nonce, now);
    return { ok: true };
  }
}

const WILDCARD = new Set(["", "0.0.0.0", "::", "[::]"]);

/** Names of loopback that a browser may resolve to either family: links never use them. */
const LOOPBACK_NAMES = new Set(["localhost", "::1"]);

/**
 * The console's address for a browser on the box itself: the bound address, or
 * 127.0.0.1 when the server listens on every interface or on `localhost`/`::1` (the
 * box holds both loopback families, and a link names the one address, never
 * `localhost`, which a browser may send to either; docs/SECURITY.md).
 */
export function consoleLinkBase(host: string, port: number): string {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const local = WILDCARD.has(bare) || LOOPBACK_NAMES.has(bare) ? "127.0.0.1" : bare;
  return `http://${local.includes(":") ? `[${local}]` : local}:${port}`;
}
