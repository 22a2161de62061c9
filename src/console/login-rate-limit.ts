/**
 * Failed console logins per client address: after 5 failures within 10 minutes the
 * address waits until the oldest failure leaves the window; a global cap (50 per window)
 * stops guessing spread over many addresses. A success clears the address's record.
 * Clients that came through a reverse proxy (`proxied:<address>`, client-address.ts)
 * count apart: their failures have a cap of their own (the same 50), never the direct
 * clients', so failures from the internet cannot lock out the owner's own local login,
 * and a local user who adds `X-Forwarded-For` from many 127.x addresses still meets a cap. The bearer token's limit is the same
 * class with its own numbers (src/server/owner-token.ts).
 */
import { PROXIED_CLIENT } from "./client-address.ts";

const WINDOW_MS = 10 * 60 * 1000;
const PER_CLIENT = 5;
const GLOBAL = 50;

export interface RateLimitNumbers {
  /** Failures of one client within the window that lock it. */
  perClient: number;
  /** Failures of all (direct) clients within the window that lock everyone. */
  global: number;
  windowMs: number;
}

export class LoginRateLimit {
  private readonly failures = new Map<string, number[]>();
  private global: number[] = [];
  /** The failures of proxied clients: the cap they share, apart from the direct one. */
  private proxied: number[] = [];
  private readonly limits: RateLimitNumbers;

  constructor(
    private readonly now: () => number = Date.now,
    limits: Partial<RateLimitNumbers> = {},
  ) {
    this.limits = { perClient: PER_CLIENT, global: GLOBAL, windowMs: WINDOW_MS, ...limits };
  }

  /** Seconds the client must wait before trying again; 0 when it may try now. */
  retryAfterSeconds(client: string): number {
    const now = this.now();
    const { perClient, global, windowMs } = this.limits;
    const cutoff = now - windowMs;
    this.global = this.global.filter((t) => t > cutoff);
    this.proxied = this.proxied.filter((t) => t > cutoff);
    const shared = client.startsWith(PROXIED_CLIENT) ? this.proxied : this.global;
    const mine = (this.failures.get(client) ?? []).filter((t) => t > cutoff);
    if (mine.length > 0) this.failures.set(client, mine);
    else this.failures.delete(client);
    const blockedBy =
      mine.length >= perClient ? mine[0] : shared.length >= global ? shared[0] : undefined;
    return blockedBy === undefined
      ? 0
      : Math.max(1, Math.ceil((blockedBy + windowMs - now) / 1000));
  }

  fail(client: string): void {
    const now = this.now();
    this.failures.set(client, [...(this.failures.get(client) ?? []), now]);
    (client.startsWith(PROXIED_CLIENT) ? this.proxied : this.global).push(now);
  }

  /** Failures of `client` in the window (for log lines). */
  failuresOf(client: string): number {
    return this.failures.get(client)?.length ?? 0;
  }

  succeed(client: string): void {
    this.failures.delete(client);
  }
}
