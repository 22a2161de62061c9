/**
 * API-key rotation for a remote provider. Profiles are tried in config order; a 401/403
 * or 429 puts the current one on cooldown (429 honours Retry-After within bounds) and
 * the same request moves on to the next. Cooldowns outlive the request, so the next
 * request skips a profile still cooling down. Only profile ids ever leave this module.
 */
export interface AuthProfile {
  id: string;
  apiKey: string;
}

export interface AuthCooldowns {
  /** Cooldown after a rejected key (401/403). */
  authMs: number;
  /** Cooldown after a 429 without Retry-After. */
  rateLimitMs: number;
  /** Bounds for a Retry-After value. */
  minRetryAfterMs: number;
  maxRetryAfterMs: number;
}

export const DEFAULT_COOLDOWNS: AuthCooldowns = {
  authMs: 30 * 60_000,
  rateLimitMs: 60_000,
  minRetryAfterMs: 1_000,
  maxRetryAfterMs: 10 * 60_000,
};

export class AuthProfiles {
  private readonly until = new Map<string, number>();
  /** Profiles cooling down because the key was refused (401/403), not rate limited. */
  private readonly refused = new Set<string>();

  constructor(
    private readonly profiles: AuthProfile[],
    private readonly now: () => number = Date.now,
    private readonly cooldowns: AuthCooldowns = DEFAULT_COOLDOWNS,
  ) {}

  /** Profiles usable now, in order (a provider without keys gets one keyless entry). */
  available(): AuthProfile[] {
    if (this.profiles.length === 0) return [{ id: "none", apiKey: "" }];
    const now = this.now();
    return this.profiles.filter((profile) => (this.until.get(profile.id) ?? 0) <= now);
  }

  /** Puts `id` on cooldown after a 401/403 (`auth`) or 429 (`rateLimit`). */
  coolDown(id: string, reason: "auth" | "rateLimit", retryAfterMs?: number): void {
    if (this.profiles.length === 0) return;
    let ms = reason === "auth" ? this.cooldowns.authMs : this.cooldowns.rateLimitMs;
    if (reason === "rateLimit" && retryAfterMs !== undefined) {
      ms = Math.min(
        Math.max(retryAfterMs, this.cooldowns.minRetryAfterMs),
        this.cooldowns.maxRetryAfterMs,
      );
    }
    this.until.set(id, this.now() + ms);
    if (reason === "auth") this.refused.add(id);
    else this.refused.delete(id);
  }

  /**
   * True when a profile cooling down now was refused by the provider (401/403). Then
   * "every profile is cooling down" is a key problem, never a transient one: it must
   * not send the turn to a cloud fallback.
   */
  refusedKeyCooling(): boolean {
    const now = this.now();
    return [...this.refused].some((id) => (this.until.get(id) ?? 0) > now);
  }

  /** Earliest time a cooling profile becomes usable again, if any is cooling. */
  nextReadyAt(): number | undefined {
    const times = [...this.until.values()].filter((t) => t > this.now());
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** Ids and cooldown ends for stats (never keys). */
  status(): { id: string; coolingDownUntil?: number }[] {
    const now = this.now();
    return this.profiles.map((profile) => {
      const until = this.until.get(profile.id);
      return until !== undefined && until > now
        ? { id: profile.id, coolingDownUntil: until }
        : { id: profile.id };
    });
  }

  secrets(): string[] {
    return this.profiles.map((profile) => profile.apiKey);
  }
}

/**
 * How long a response asks us to wait, in milliseconds: `retry-after-ms` first (OpenAI
 * and Azure send it, in milliseconds, as the official SDKs read it), then `retry-after`.
 */
export function retryAfterFromHeaders(
  headers: Headers,
  now: number = Date.now(),
): number | undefined {
  const ms = Number(headers.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  return parseRetryAfter(headers.get("retry-after"), now);
}

/** Parses a Retry-After header (seconds or HTTP date) into milliseconds. */
export function parseRetryAfter(
  header: string | null,
  now: number = Date.now(),
): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
