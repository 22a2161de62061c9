/**
 * Who may use the console: only a browser that logged in. There is no open mode, on
 * loopback included (any local user can reach 127.0.0.1, and the console acts as the
 * owner). A login is either the login secret (`<home>/console-secret`, login-secret.ts)
 * or `server.token` typed on the login page, or a one-time link signed with the secret
 * (login-ticket.ts). It gives a random session id in an HttpOnly, SameSite=Strict cookie
 * (sessions live in memory: a restart logs everyone out). Every state-changing request
 * carries the session's CSRF token in a header, which a cross-site form or a simple
 * request can never set. Failed logins and failed links are limited per client address.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { LoginRateLimit } from "./login-rate-limit.ts";
import type { TicketVerifier } from "./login-ticket.ts";

export const SESSION_COOKIE = "clawbox_console";
export const CSRF_HEADER = "x-clawbox-csrf";
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 64;

interface ConsoleSession {
  csrf: string;
  expiresAt: number;
}

export type LoginOutcome =
  | { ok: true; sessionId: string; maxAgeSeconds: number }
  | { ok: false; limited: false }
  | { ok: false; limited: true; retryAfterSeconds: number };

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();
const randomId = (): string => randomBytes(32).toString("base64url");

export interface ConsoleAuthOptions {
  /** What a person may type to log in: the login secret, and `server.token` when set. */
  secrets: readonly string[];
  /** Checks one-time login links; absent = links are refused. */
  tickets?: Pick<TicketVerifier, "redeem">;
  now?: () => number;
}

export class ConsoleAuth {
  private readonly sessions = new Map<string, ConsoleSession>();
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
    const sessionId = randomId();
    this.sessions.set(sessionId, { csrf: randomId(), expiresAt: this.now() + SESSION_TTL_MS });
    return { ok: true, sessionId, maxAgeSeconds: SESSION_TTL_MS / 1000 };
  }

  logout(sessionId: string | undefined): void {
    if (sessionId) this.sessions.delete(sessionId);
  }

  /** The CSRF token of a logged-in client, or undefined when it must log in. */
  csrfFor(sessionId: string | undefined): string | undefined {
    if (!sessionId) return undefined;
    const session = this.sessions.get(sessionId);
    if (!session) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(sessionId);
      return undefined;
    }
    return session.csrf;
  }

  /** Constant-time check of a request's CSRF header against the client's token. */
  csrfMatches(expected: string, presented: string | undefined): boolean {
    return presented !== undefined && timingSafeEqual(digest(presented), digest(expected));
  }

  private prune(): void {
    const now = this.now();
    for (const [id, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(id);
    while (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
  }
}
