/**
 * API writes take `application/json` only (415 otherwise). A web page can send
 * `text/plain` or a form to any address without a CORS preflight; requiring JSON forces
 * the preflight, which this server never answers, so no page the owner visits can post.
 */
import type { MiddlewareHandler } from "hono";
import { jsonError } from "./json-error.ts";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function requireJsonBody(): MiddlewareHandler {
  return async (c, next) => {
    if (!WRITES.has(c.req.method)) return next();
    const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") {
      return jsonError(
        c,
        415,
        "HTTP_UNSUPPORTED_MEDIA_TYPE",
        `content-type must be application/json (got ${type ? `"${type}"` : "none"})`,
      );
    }
    return next();
  };
}
