/**
 * The error shapes of the HTTP API: `{"error": {"code", "message"}}` with a stable code
 * per kind of failure, never a stack or plain text. A route family that speaks another
 * protocol (the OpenAI-compatible `/v1/*`) sets its own body renderer on the request
 * first, so every guard's refusal (Host, token, body size) comes out in that shape too.
 * The codes are the errors area's (`HttpErrorCode`, part of the one `ErrorCode` list).
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { HttpErrorCode } from "../errors/index.ts";

/** Builds the JSON body of an error response. */
export type ErrorBodyRenderer = (
  status: ContentfulStatusCode,
  code: HttpErrorCode,
  message: string,
) => unknown;

declare module "hono" {
  interface ContextVariableMap {
    /** Set by a route family whose clients expect another error shape. */
    clawboxErrorBody: ErrorBodyRenderer;
  }
}

export function jsonError(
  c: Context,
  status: ContentfulStatusCode,
  code: HttpErrorCode,
  message: string,
  headers?: Record<string, string>,
): Response {
  const render = c.get("clawboxErrorBody");
  return c.json(
    render ? render(status, code, message) : { error: { code, message } },
    status,
    headers,
  );
}
