/**
 * A platform's access token (QQ's app token, the WeCom app's `gettoken`), cached and
 * refreshed by one rule for both: used until a minute before it expires (or half its
 * lifetime, when that is later, so a short-lived token is not fetched on every call),
 * one fetch in flight at a time (concurrent callers share it). A clock that jumps
 * forward (the first NTP sync on a box without RTC) makes it count as expired.
 * `invalidate` drops a token the platform refused, so the next call fetches a new one.
 */
export interface AccessToken {
  token: string;
  /** Lifetime in seconds as the platform gave it. */
  expiresIn: number;
}

export interface AccessTokenCache {
  get(): Promise<string>;
  /**
   * Forgets the cached token: with `token`, only while it is still the cached one (a
   * call that failed with an old token does not drop a newer one).
   */
  invalidate(token?: string): void;
}

const REFRESH_EARLY_MS = 60_000;

export function createAccessTokenCache(
  fetchToken: () => Promise<AccessToken>,
  now: () => number = Date.now,
): AccessTokenCache {
  let cached: { token: string; refreshAt: number } | undefined;
  let inFlight: Promise<string> | undefined;
  return {
    get() {
      if (cached && now() < cached.refreshAt) return Promise.resolve(cached.token);
      inFlight ??= fetchToken()
        .then((fresh) => {
          const lifetimeMs = fresh.expiresIn * 1000;
          cached = {
            token: fresh.token,
            refreshAt: now() + Math.max(lifetimeMs / 2, lifetimeMs - REFRESH_EARLY_MS),
          };
          return fresh.token;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    invalidate(token) {
      if (token === undefined || cached?.token === token) cached = undefined;
    },
  };
}
