/**
 * Wrong bearer tokens (docs/SECURITY.md, "Bearer tokens"). Each refused token is
 * counted per client (its address; requests through a proxy in their own bucket,
 * console/client-address.ts); after `PER_CLIENT` failures within 10 minutes the client
 * gets 429 with `Retry-After` until its oldest failure leaves the window, whatever token
 * it sends (a right token must not tell a guesser it was right). Refusals are logged,
 * never the token: at most one line per client per `LOG_EVERY_MS`, with the count of the
 * ones not logged in between, so a flood cannot fill the journal.
 */
import type { Context } from "hono";
import { clientKey, LoginRateLimit } from "../console/index.ts";
import type { Logger } from "../system/index.ts";

const PER_CLIENT = 10;
/** Far above one person's mistakes; stops a guess spread over many addresses. */
const GLOBAL = 100;
const WINDOW_MS = 10 * 60 * 1000;
const LOG_EVERY_MS = 60_000;
/** Clients whose last log line is remembered (oldest forgotten first). */
const MAX_LOGGED_CLIENTS = 256;

export interface BearerFailures {
  /** Seconds the request's client must wait; 0 when it may try. */
  retryAfterSeconds(c: Context): number;
  /** A request carried a token that is not `server.token`. */
  refused(c: Context): void;
  /** A request carried the right token. */
  accepted(c: Context): void;
}

export function createBearerFailures(logger: Logger, now: () => number = Date.now): BearerFailures {
  const limit = new LoginRateLimit(now, {
    perClient: PER_CLIENT,
    global: GLOBAL,
    windowMs: WINDOW_MS,
  });
  const lastLogged = new Map<string, { at: number; quiet: number }>();
  return {
    retryAfterSeconds: (c) => limit.retryAfterSeconds(clientKey(c)),
    refused(c) {
      const client = clientKey(c);
      limit.fail(client);
      const last = lastLogged.get(client);
      if (last && now() - last.at < LOG_EVERY_MS) {
        last.quiet += 1;
        return;
      }
      lastLogged.delete(client);
      if (lastLogged.size >= MAX_LOGGED_CLIENTS) {
        const oldest = lastLogged.keys().next().value;
        if (oldest !== undefined) lastLogged.delete(oldest);
      }
      lastLogged.set(client, { at: now(), quiet: 0 });
      logger.warn("refused a wrong bearer token", {
        client,
        path: c.req.path,
        failuresIn10Min: limit.failuresOf(client),
        ...(last ? { notLoggedSinceLastLine: last.quiet } : {}),
      });
    },
    accepted: (c) => limit.succeed(clientKey(c)),
  };
}
