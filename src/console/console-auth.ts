/**
 * Who may use the console: only a browser that logged in. There is no open mode, on
 * loopback included (any local user can reach 127.0.0.1, and the console acts as the
 * owner). A login is either the login secret (`<home>/console-secret`, login-secret.ts)
 * or `server.token` typed on the login page, or a one-time link signed with the secret
 * (login-ticket.ts). It gives a random session token that the login page's own script
 * keeps in the origin's localStorage and the client sends in the `X-Clawbox-Session`
 * header of every API request. There is no session cookie: a browser sends a host's
 * cookies to every port of that host, so a cookie for 127.0.0.1:18790 would reach any
 * local user's server on 127.0.0.1:28802; storage is per scheme, host and port, and a
 * page of another origin cannot set the header without a CORS preflight, which the box
 * refuses (which is also why no CSRF token is needed). Sessions live in memory (a restart
 * logs everyone out) and end after 12 hours or at logout. Failed logins and failed links
 * are limited per client address.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { LoginRateLimit } from "./login-rate-limit.ts";
import type { TicketVerifier } from "./login-ticket.ts";

/** The request header that carries a console session's token. */
export const SESSION_HEADER = "x-clawbox-session";
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 64;

export type LoginOutcome =
  | { ok: true; token: string; expiresAt: number }
  | { ok: false; limited: false }
  | { ok: false; limited: true; retryAfterSeconds: number };

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();
/** Sessions are kept by the digest of their token: memory never holds a usable token. */
const keyOf = (token: string): string => digest(token).toString("base64url");

export interface ConsoleAuthOptions {
  /** What a person may type to log in: the login secret, and `server.token` when set. */
  secrets: readonly string[];
  /** Checks one-time login links; absent = links are refused. */
  tickets?: Pick<TicketVerifier, "redeem">;
  now?: () => number;
}

export class ConsoleAuth {
  /** Session key → when it expires. */
  private readonly sessions = new Map<string, number>();
  private readonly digests: Buffer[];
  private readonly now: () => number;
  readonly limiter: LoginRateLimit;

  constructor(private readonly options: ConsoleAuthOptions) {
    this.digests = options.secrets.filter((s) => s.length > 0).map(digest);
    this.now = options.now ?? Date.now;
    this.limiter = new LoginRateLimit(this.now);
  }

  /** Seconds `client` must wait before another login attempt; 0 when it may try now. */
  retryAfterSeconds(client: string): number {
    return this.limiter.retryAfterSeconds(client);
  }

  /** A typed secret: the login secret or `server.token`. */
  login(candidate: string, client: string): LoginOutcome {
    return this.settle(client, () => {
      const given = digest(candidate);
      // Compare against every secret (no early exit), so timing says nothing about which.
      let match = false;
      for (const expected of this.digests) if (timingSafeEqual(given, expected)) match = true;
      return match;
    });
  }

  /** A one-time link's ticket. */
  redeem(ticket: string, client: string): LoginOutcome {
    return this.settle(client, () => this.options.tickets?.redeem(ticket).ok === true);
  }

  /** Checks the limit first, so a locked-out client does not even use up a valid link. */
  private settle(client: string, matches: () => boolean): LoginOutcome {
    const wait = this.limiter.retryAfterSeconds(client);
    if (wait > 0) return { ok: false, limited: true, retryAfterSeconds: wait };
    if (!matches()) {
      this.limiter.fail(client);
      return { ok: false, limited: false };
    }
    this.limiter.succeed(client);
    this.prune();
    const token = randomBytes(32).toString("base64url");
    const expiresAt = this.now() + SESSION_TTL_MS;
    this.sessions.set(keyOf(token), expiresAt);
    return { ok: true, token, expiresAt };
  }

  logout(token: string | undefined): void {
    if (token) this.sessions.delete(keyOf(token));
  }

  /** When the session of `token` expires, or undefined when the request must log in. */
  expiresAt(token: string | undefined): number | undefined {
    if (!token) return undefined;
    const key = keyOf(token);
    const expiresAt = this.sessions.get(key);
    if (expiresAt === undefined) return undefined;
    if (expiresAt <= this.now()) {
      this.sessions.delete(key);
      return undefined;
    }
    return expiresAt;
  }

  private prune(): void {
    const now = this.now();
    for (const [key, expiresAt] of this.sessions) if (expiresAt <= now) this.sessions.delete(key);
    while (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
  }
}
