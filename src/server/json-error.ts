/**
 * The one error shape of the HTTP API: `{"error": {"code", "message"}}` with a stable
 * code per kind of failure, never a stack or plain text.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type HttpErrorCode =
  | "HTTP_BAD_REQUEST"
  | "HTTP_UNAUTHORIZED"
  | "HTTP_FORBIDDEN"
  | "HTTP_NOT_FOUND"
  | "HTTP_METHOD_NOT_ALLOWED"
  | "HTTP_BODY_TOO_LARGE"
  | "HTTP_UNSUPPORTED_MEDIA_TYPE"
  | "INTERNAL";

export function jsonError(
  c: Context,
  status: ContentfulStatusCode,
  code: HttpErrorCode,
  message: string,
  headers?: Record<string, string>,
): Response {
  return c.json({ error: { code, message } }, status, headers);
}
