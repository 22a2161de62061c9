/**
 * A Raspberry Pi 4 has no real-time clock: until NTP syncs, the box runs on the image's
 * date and every TLS certificate issued after it looks "not yet valid". Network code
 * retries such failures like any other; this names the likely cause in its log line,
 * so an owner reading `journalctl -u clawbox` looks at the clock, not the certificate.
 */
export const CLOCK_HINT = "certificate not yet valid — is the clock set? (no RTC until NTP sync)";

const NOT_YET_VALID = /not yet valid|CERT_NOT_YET_VALID/i;

/** The clock hint when `error` (or its cause) is a TLS "not yet valid" failure. */
export function clockHint(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; depth++) {
    if (typeof e === "string") return NOT_YET_VALID.test(e) ? CLOCK_HINT : undefined;
    if (typeof e !== "object" || e === null) return undefined;
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (code === "CERT_NOT_YET_VALID") return CLOCK_HINT;
    if (typeof message === "string" && NOT_YET_VALID.test(message)) return CLOCK_HINT;
    e = cause;
  }
  return undefined;
}
