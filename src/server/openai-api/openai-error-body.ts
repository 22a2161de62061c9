/**
 * OpenAI's error shape, `{"error": {"message", "type", "param", "code"}}`, for every
 * refusal under `/v1/*`: OpenAI clients read `error.message` and branch on the status and
 * `type`, so a wrong token, a Host refused or a body too large reads to them as it would
 * from OpenAI. Loaded with the server (the guards answer before the routes are loaded).
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { HttpErrorCode } from "../../errors/index.ts";
import type { ErrorBodyRenderer } from "../json-error.ts";

/** OpenAI's error `type` and `code` for each of the server's error codes. */
const OPENAI_KIND: Record<HttpErrorCode, { type: string; code: string }> = {
  HTTP_BAD_REQUEST: { type: "invalid_request_error", code: "invalid_request" },
  HTTP_UNAUTHORIZED: { type: "invalid_request_error", code: "invalid_api_key" },
  HTTP_FORBIDDEN: { type: "permission_error", code: "forbidden" },
  HTTP_NOT_FOUND: { type: "invalid_request_error", code: "not_found" },
  HTTP_METHOD_NOT_ALLOWED: { type: "invalid_request_error", code: "method_not_allowed" },
  HTTP_BODY_TOO_LARGE: { type: "invalid_request_error", code: "request_too_large" },
  HTTP_UNSUPPORTED_MEDIA_TYPE: { type: "invalid_request_error", code: "unsupported_media_type" },
  HTTP_TOO_MANY_REQUESTS: { type: "rate_limit_error", code: "rate_limit_exceeded" },
  INTERNAL: { type: "server_error", code: "internal_error" },
};

export interface OpenAiError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

export function openAiError(message: string, type: string, code: string | null): OpenAiError {
  return { message, type, param: null, code };
}

export const openAiErrorBody: ErrorBodyRenderer = (
  _status: ContentfulStatusCode,
  code: HttpErrorCode,
  message: string,
) => {
  const kind = OPENAI_KIND[code];
  return { error: openAiError(message, kind.type, kind.code) };
};
