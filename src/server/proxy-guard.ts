/**
 * Behind a reverse proxy the whole internet arrives from the proxy's address, often
 * 127.0.0.1, and a proxy that rewrites `Host` (nginx does by default) passes the Host
 * check: the tokenless API would treat every internet client as the local stranger
 * `web:local` (docs/SECURITY.md, "Behind a reverse proxy"). So on a box without
 * `server.token`, a request that carries a proxy's header (`Forwarded`,
 * `X-Forwarded-For`, `X-Real-IP`, `Via`) is refused on every route but the channel
 * webhooks, which carry their platform's signature. With a token set, such requests are
 * let through and need the token (or a console login) as usual.
 */
import type { MiddlewareHandler } from "hono";
import { proxyHeaderOf } from "../console/index.ts";
import { jsonError } from "./json-error.ts";

export function refuseProxiedWithoutToken(token: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (token) return next();
    const header = proxyHeaderOf(c.req.raw.headers);
    if (!header) return next();
    return jsonError(
      c,
      403,
      "HTTP_FORBIDDEN",
      `this request came through a proxy (it carries ${header}); without server.token only /channels/… webhooks are served through one`,
    );
  };
}
