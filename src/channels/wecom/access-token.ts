/**
 * The self-built app's access token: fetched from `gettoken`, cached until a minute
 * before it expires, one fetch in flight at a time. `invalidate` drops a token the
 * API called expired or invalid (42001/40014) so the next call fetches a new one.
 */
export interface AccessToken {
  token: string;
  /** Lifetime in seconds as the platform gave it. */
  expiresIn: number;
}

export interface AccessTokenCache {
  get(): Promise<string>;
  /** Forgets `token` if it is still the cached one. */
  invalidate(token: string): void;
}

const EARLY_REFRESH_MS = 60_000;

export function createAccessTokenCache(
  fetchToken: () => Promise<AccessToken>,
  now: () => number = Date.now,
): AccessTokenCache {
  let cached: { token: string; expiresAt: number } | undefined;
  let inFlight: Promise<string> | undefined;
  return {
    get() {
      if (cached && now() < cached.expiresAt) return Promise.resolve(cached.token);
      inFlight ??= fetchToken()
        .then((fresh) => {
          cached = {
            token: fresh.token,
            expiresAt: now() + Math.max(0, fresh.expiresIn * 1000 - EARLY_REFRESH_MS),
          };
          return fresh.token;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    invalidate(token) {
      if (cached?.token === token) cached = undefined;
    },
  };
}
