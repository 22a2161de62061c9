/**
 * The owner's bearer token (`server.token`). When configured, every /api/* request must
 * carry it (401 in JSON otherwise), and a request that does is the owner's. The
 * comparison takes the same time whatever the token, so it leaks nothing by timing.
 * Wrong tokens are logged and limited per client (bearer-failures.ts): a guesser gets 429.
 */
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { BearerFailures } from "./bearer-failures.ts";
import { jsonError } from "./json-error.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** Set by `ownerToken` when the request carried the valid owner token. */
    clawboxOwner: boolean;
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface OwnerTokenOptions {
  /**
   * Refuse every request when no token is configured (a route that is only ever the
   * owner's), instead of letting it through as a tokenless client.
   */
  required?: boolean;
  /** Counts, logs and limits wrong tokens (one instance for every route family). */
  failures?: BearerFailures;
}

/** Requires `Authorization: Bearer <token>`; undefined token = no check (loopback only). */
export function ownerToken(
  token: string | undefined,
  options: OwnerTokenOptions = {},
): MiddlewareHandler {
  return async (c, next) => {
    if (!token && options.required) {
      return jsonError(
        c,
        401,
        "HTTP_UNAUTHORIZED",
        "this API needs server.token, which is not set on this box",
        { "WWW-Authenticate": 'Bearer realm="clawbox"' },
      );
    }
    if (!token) return next();
    const header = c.req.header("authorization") ?? "";
    // Checked before the token: a locked-out guesser learns nothing, a right guess included.
    const wait = header ? (options.failures?.retryAfterSeconds(c) ?? 0) : 0;
    if (wait > 0) {
      return jsonError(
        c,
        429,
        "HTTP_TOO_MANY_REQUESTS",
        `too many wrong bearer tokens from this client; try again in ${wait} s`,
        { "Retry-After": String(wait) },
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1] || !sameToken(match[1], token)) {
      if (header) options.failures?.refused(c);
      return jsonError(
        c,
        401,
        "HTTP_UNAUTHORIZED",
        header
          ? "the bearer token is not valid"
          : "this API needs Authorization: Bearer <server.token>",
        { "WWW-Authenticate": 'Bearer realm="clawbox"' },
      );
    }
    options.failures?.accepted(c);
    c.set("clawboxOwner", true);
    return next();
  };
}

/** True when this request proved it is the owner's (valid `server.token`). */
export function isOwnerRequest(c: Context): boolean {
  return c.get("clawboxOwner") === true;
}
