import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../fakes/qq-platform.ts";
import { type QqRig, startQqRig } from "./qq-service-harness.ts";

let rig: QqRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe("QQ channel status", () => {
  it("shows an error in plain words, without the secret, when the credentials are wrong", async () => {
    rig = await startQqRig({ qq: { clientSecret: "not-the-right-secret-123" } });
    const r = rig;
    await waitUntil(() => r.service.status()[0]?.state === "error", 10_000, "error state");
    const status = r.service.status()[0];
    expect(status?.reason).toContain("check channels.qq.appId and channels.qq.clientSecret");
    expect(status?.reason).toContain("reconnecting in");
    expect(JSON.stringify(r.service.status())).not.toContain("not-the-right-secret-123");
  });

  it("shows resuming while the gateway reconnects with a known session, then connected", async () => {
    rig = await startQqRig();
    const r = rig;
    await waitUntil(() => r.service.status()[0]?.state === "connected", 10_000, "READY");
    const states: string[] = [];
    const timer = setInterval(() => states.push(r.service.status()[0]?.state ?? ""), 5);
    r.platform.closeSocket(4000, "network blip");
    await waitUntil(
      () => (r.platform.connections[1] ?? []).some((f) => f.op === 6),
      10_000,
      "resume",
    );
    await waitUntil(() => r.service.status()[0]?.state === "connected", 10_000, "RESUMED");
    clearInterval(timer);
    expect(states).toContain("resuming");
    expect(r.service.status()[0]?.reason).toBeUndefined();
  });
});
