/**
 * No RTC (issue 18): a box that fetched an access token while its clock still showed the
 * image's date sees the clock jump forward when NTP syncs. The cached token's expiry was
 * computed from the old clock, so after the jump it must count as expired and be fetched
 * again, never used on the strength of the old date (QQ and WeCom app tokens alike).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAccessTokenCache } from "../../src/channels/access-token-cache.ts";
import { createQqAccessToken } from "../../src/channels/qq/qq-access-token.ts";
import { FakeQqPlatform } from "../fakes/qq-platform.ts";

const YEAR_MS = 365 * 24 * 3600 * 1000;
/** The image's build date, where a Pi 4 without RTC starts. */
const IMAGE_DATE = Date.UTC(2025, 5, 1);

let platform: FakeQqPlatform | undefined;
afterEach(async () => {
  await platform?.stop();
  platform = undefined;
});

describe("access tokens across the clock jump at the first NTP sync", () => {
  it("QQ: a token fetched on the image's date is fetched again after a jump of a year", async () => {
    platform = new FakeQqPlatform({ expiresIn: "7200" }).start();
    let clock = IMAGE_DATE;
    const tokens = createQqAccessToken({
      tokenUrl: platform.tokenUrl,
      appId: platform.appId,
      clientSecret: platform.clientSecret,
      now: () => clock,
    });
    const before = await tokens.get();
    expect(await tokens.get()).toBe(before);
    clock += YEAR_MS;
    const after = await tokens.get();
    expect(after).not.toBe(before);
    expect(platform.tokenRequests).toBe(2);
    // And the new token is cached on the corrected clock.
    clock += 60_000;
    expect(await tokens.get()).toBe(after);
    expect(platform.tokenRequests).toBe(2);
  });

  it("WeCom: a token fetched on the image's date is fetched again after a jump of a year", async () => {
    let clock = IMAGE_DATE;
    let fetched = 0;
    const cache = createAccessTokenCache(
      async () => ({ token: `token-${++fetched}`, expiresIn: 7200 }),
      () => clock,
    );
    expect(await cache.get()).toBe("token-1");
    expect(await cache.get()).toBe("token-1");
    clock += YEAR_MS;
    expect(await cache.get()).toBe("token-2");
    clock += 60_000;
    expect(await cache.get()).toBe("token-2");
    expect(fetched).toBe(2);
  });
});
