/**
 * The message of anything thrown, for a log line or a reason stored with a failure: an
 * Error's message, else the value as text. Telling failures apart goes by a
 * ClawboxError's code (`isClawboxError`), never by this text.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
