/**
 * QQ's and the WeCom app's access tokens are kept by one cache with one rule: used
 * until a minute before expiry (or half the lifetime, when later), one fetch for
 * concurrent callers, and a refused token dropped only while it is still the cached one.
 */
import { describe, expect, it } from "vitest";
import { createAccessTokenCache } from "../../src/channels/access-token-cache.ts";

function counted(expiresIn: number) {
  let clock = 0;
  let fetched = 0;
  const cache = createAccessTokenCache(
    async () => ({ token: `token-${++fetched}`, expiresIn }),
    () => clock,
  );
  return {
    cache,
    at: (ms: number) => {
      clock = ms;
    },
    fetched: () => fetched,
  };
}

describe("one access-token refresh rule", () => {
  it("a two-hour token is used until a minute before it expires", async () => {
    const t = counted(7200);
    expect(await t.cache.get()).toBe("token-1");
    t.at(7_139_000);
    expect(await t.cache.get()).toBe("token-1");
    t.at(7_140_000);
    expect(await t.cache.get()).toBe("token-2");
  });

  it("a short-lived token is used for half its lifetime, not fetched on every call", async () => {
    const t = counted(60);
    expect(await t.cache.get()).toBe("token-1");
    t.at(29_000);
    expect(await t.cache.get()).toBe("token-1");
    t.at(30_000);
    expect(await t.cache.get()).toBe("token-2");
  });

  it("concurrent callers share one fetch", async () => {
    const t = counted(7200);
    const tokens = await Promise.all([t.cache.get(), t.cache.get(), t.cache.get()]);
    expect(tokens).toEqual(["token-1", "token-1", "token-1"]);
    expect(t.fetched()).toBe(1);
  });

  it("a refused old token does not drop a newer one; invalidate() without a token does", async () => {
    const t = counted(7200);
    const old = await t.cache.get();
    t.cache.invalidate(old);
    expect(await t.cache.get()).toBe("token-2");
    t.cache.invalidate(old);
    expect(await t.cache.get()).toBe("token-2");
    t.cache.invalidate();
    expect(await t.cache.get()).toBe("token-3");
  });
});
