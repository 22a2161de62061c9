/**
 * The one error class of clawbox. Every error that reaches a user carries a stable
 * `code` (callers branch on it, logs group by it) and a message that says what was
 * wrong, where, and what to do. Messages must never contain secrets.
 */
import { errorMessage } from "./error-message.ts";

export type ErrorCode =
  | "CONFIG_INVALID"
  | "CONFIG_UNREADABLE"
  | "STORE_OPEN_FAILED"
  | "STORE_CORRUPT"
  | "STORE_MIGRATION_FAILED"
  | "STORE_EXTENSION_MISSING"
  | "NOT_FOUND"
  | "SESSION_NOT_FOUND"
  | "SESSION_BUSY"
  | "AGENT_BUSY"
  | "SESSION_KEY_INVALID"
  | "SESSION_FORBIDDEN"
  | "TRANSCRIPT_INVALID"
  | "MODEL_NOT_FOUND"
  | "MODEL_INVALID"
  | "MODEL_LOAD_FAILED"
  | "MODEL_CRASHED"
  | "PROVIDER_AUTH"
  | "PROVIDER_RATE_LIMIT"
  | "PROVIDER_OVERLOADED"
  | "PROVIDER_BILLING"
  | "PROVIDER_TIMEOUT"
  | "PROVIDER_NETWORK"
  | "PROVIDER_BAD_RESPONSE"
  | "PROVIDER_STOPPED"
  | "CONTEXT_OVERFLOW"
  | "TOOL_INVALID_ARGS"
  | "TOOL_DENIED"
  | "TOOL_FAILED"
  | "WORKSPACE_ESCAPE"
  | "WORKSPACE_UNREACHABLE"
  | "MEMORY_INDEX_FAILED"
  | "EMBEDDING_FAILED"
  | "CLI_USAGE"
  | "HTTP_BAD_REQUEST"
  | "HTTP_UNAUTHORIZED"
  | "HTTP_NOT_FOUND"
  | "HTTP_METHOD_NOT_ALLOWED"
  | "HTTP_BODY_TOO_LARGE"
  | "HTTP_UNSUPPORTED_MEDIA_TYPE"
  | "HTTP_TOO_MANY_REQUESTS"
  | "CHANNEL_AUTH"
  | "CHANNEL_API"
  | "CHANNEL_NETWORK"
  | "HTTP_FORBIDDEN"
  | "ABORTED"
  | "NATIVE_MODULE_MISSING"
  | "MEDIA_INVALID"
  | "PAIRING_LOCKED"
  | "OWNER_REQUIRED"
  | "BACKUP_INVALID"
  | "BACKUP_PASSPHRASE"
  | "BACKUP_TOO_NEW"
  | "BACKUP_TARGET_NOT_EMPTY"
  | "BACKUP_NO_SPACE"
  | "INTERNAL";

/** The codes an HTTP error body carries (`{"error": {"code", "message"}}`). */
export type HttpErrorCode = Extract<ErrorCode, `HTTP_${string}`> | "INTERNAL";

export interface ClawboxErrorOptions {
  /** What the user can do about it, shown after the message in parentheses. */
  hint?: string;
  cause?: unknown;
  /** Structured details for logs and API responses (no secrets). */
  details?: Record<string, unknown>;
}

export class ClawboxError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ClawboxErrorOptions = {}) {
    super(options.hint ? `${message} (${options.hint})` : message, { cause: options.cause });
    this.name = "ClawboxError";
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  toJSON(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

/** True when `error` is a ClawboxError with one of `codes` (or any code when none given). */
export function isClawboxError(error: unknown, ...codes: ErrorCode[]): error is ClawboxError {
  return error instanceof ClawboxError && (codes.length === 0 || codes.includes(error.code));
}

/** Turns anything thrown into a ClawboxError, keeping the original as `cause`. */
export function toClawboxError(error: unknown, fallback: ErrorCode = "INTERNAL"): ClawboxError {
  if (error instanceof ClawboxError) return error;
  const message = errorMessage(error);
  return new ClawboxError(fallback, message, { cause: error });
}
