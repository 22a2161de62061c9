/**
 * Failed console logins per client address: after 5 failures within 10 minutes the
 * address waits until the oldest failure leaves the window; a global cap (50 per window)
 * stops guessing spread over many addresses. A success clears the address's record.
 */
const WINDOW_MS = 10 * 60 * 1000;
const PER_CLIENT = 5;
const GLOBAL = 50;

export class LoginRateLimit {
  private readonly failures = new Map<string, number[]>();
  private global: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Seconds the client must wait before trying again; 0 when it may try now. */
  retryAfterSeconds(client: string): number {
    const now = this.now();
    const cutoff = now - WINDOW_MS;
    this.global = this.global.filter((t) => t > cutoff);
    const mine = (this.failures.get(client) ?? []).filter((t) => t > cutoff);
    if (mine.length > 0) this.failures.set(client, mine);
    else this.failures.delete(client);
    const blockedBy =
      mine.length >= PER_CLIENT
        ? mine[0]
        : this.global.length >= GLOBAL
          ? this.global[0]
          : undefined;
    return blockedBy === undefined
      ? 0
      : Math.max(1, Math.ceil((blockedBy + WINDOW_MS - now) / 1000));
  }

  fail(client: string): void {
    const now = this.now();
    this.failures.set(client, [...(this.failures.get(client) ?? []), now]);
    this.global.push(now);
  }

  succeed(client: string): void {
    this.failures.delete(client);
  }
}
