/**
 * Who may use the console. With no `server.token` (only allowed on loopback) it is open,
 * and the Host header must name a loopback address so a rebound DNS name cannot reach
 * it. With a token, the login form trades the token for a random session id in an
 * HttpOnly, SameSite=Strict cookie (sessions live in memory: a restart logs everyone
 * out). Every state-changing request carries the session's CSRF token in a header,
 * which a cross-site form or a simple request can never set. Failed logins are limited
 * per client address.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { LoginRateLimit } from "./login-rate-limit.ts";

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

export class ConsoleAuth {
  private readonly sessions = new Map<string, ConsoleSession>();
  private readonly tokenDigest: Buffer | undefined;
  /** The CSRF token of the open (no token) console; one per process. */
  private readonly openCsrf = randomId();
  readonly limiter: LoginRateLimit;

  constructor(
    token: string | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.tokenDigest = token ? digest(token) : undefined;
    this.limiter = new LoginRateLimit(now);
  }

  /** True when no token is configured (the server then listens on loopback only). */
  get open(): boolean {
    return this.tokenDigest === undefined;
  }

  login(candidate: string, client: string): LoginOutcome {
    const wait = this.limiter.retryAfterSeconds(client);
    if (wait > 0) return { ok: false, limited: true, retryAfterSeconds: wait };
    if (!this.tokenDigest || !timingSafeEqual(digest(candidate), this.tokenDigest)) {
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

  /** The CSRF token of an authenticated client, or undefined when it must log in. */
  csrfFor(sessionId: string | undefined): string | undefined {
    if (this.open) return this.openCsrf;
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
