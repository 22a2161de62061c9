import { afterEach, describe, expect, it } from "vitest";
import { createQqAccessToken } from "../../src/channels/qq/qq-access-token.ts";
import { QqApi } from "../../src/channels/qq/qq-api.ts";
import { FakeQqPlatform } from "../fakes/qq-platform.ts";

let platform: FakeQqPlatform | undefined;
afterEach(async () => {
  await platform?.stop();
  platform = undefined;
});

function source(p: FakeQqPlatform, now?: () => number) {
  return createQqAccessToken({
    tokenUrl: p.tokenUrl,
    appId: p.appId,
    clientSecret: p.clientSecret,
    ...(now ? { now } : {}),
  });
}

describe("QQ access token", () => {
  it("fetches once for concurrent callers and accepts expires_in as a numeric string", async () => {
    platform = new FakeQqPlatform({ expiresIn: "7200" }).start();
    const tokens = source(platform);
    const all = await Promise.all([tokens.get(), tokens.get(), tokens.get()]);
    expect(new Set(all).size).toBe(1);
    expect(platform.tokenRequests).toBe(1);
  });

  it("refreshes before expiry", async () => {
    platform = new FakeQqPlatform({ expiresIn: 7200 }).start();
    let clock = 1_000_000;
    const tokens = source(platform, () => clock);
    const first = await tokens.get();
    clock += 7100 * 1000; // 100 s left: still more than the one-minute margin
    expect(await tokens.get()).toBe(first);
    clock += 60 * 1000; // 40 s left: refreshed
    expect(await tokens.get()).not.toBe(first);
    expect(platform.tokenRequests).toBe(2);
  });

  it("refreshes once and retries once when the API answers 401", async () => {
    platform = new FakeQqPlatform().start();
    const api = new QqApi(platform.url, source(platform));
    expect(await api.gatewayUrl()).toContain("/websocket");
    platform.revokeTokens();
    expect(await api.gatewayUrl()).toContain("/websocket");
    expect(platform.tokenRequests).toBe(2);
  });

  it("says which setting to check when the credentials are wrong, without the secret", async () => {
    platform = new FakeQqPlatform().start();
    const tokens = createQqAccessToken({
      tokenUrl: platform.tokenUrl,
      appId: platform.appId,
      clientSecret: "wrong-secret-value",
    });
    const error = await tokens.get().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain("channels.qq.clientSecret");
    expect(error?.message).not.toContain("wrong-secret-value");
  });
});
