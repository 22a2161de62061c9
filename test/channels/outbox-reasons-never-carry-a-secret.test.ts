/**
 * A reply the platform refused keeps the refusal as its outbox reason (`channels status`
 * "last failure", `doctor`), and the channel's state keeps it as its reason. A token
 * endpoint that echoes the AppSecret into its error cannot put it there: the real channel
 * service and QQ adapter, in process, with a logger that knows no secrets, so what hides
 * the AppSecret is the channel's own credentials.
 */
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../fakes/qq-platform.ts";
import {
  type CredentialEchoServer,
  startCredentialEchoServer,
} from "../support/credential-echo-server.ts";
import { type QqRig, startQqRig } from "./qq-service-harness.ts";

const SECRET = "QQSECRET-OUTBOX-8080";

let rig: QqRig | undefined;
let echo: CredentialEchoServer | undefined;
afterEach(async () => {
  await rig?.close();
  await echo?.close();
  rig = undefined;
  echo = undefined;
});

describe("a refusal that echoes the AppSecret", () => {
  it("is stored as the reply's outbox reason and the channel's reason with the secret redacted", async () => {
    echo = await startCredentialEchoServer();
    rig = await startQqRig({
      qq: { clientSecret: SECRET, tokenUrl: `${echo.url}/app/getAppAccessToken` },
    });
    const r = rig;
    const [id] = r.service.deliver({ channel: "qq", chatType: "direct", peerId: "u-1" }, "hi");
    const reasonOf = () =>
      (
        r.harness.store.db.query("SELECT reason FROM channel_outbox WHERE id = ?").get(id ?? 0) as {
          reason: string | null;
        } | null
      )?.reason ?? "";
    await waitUntil(() => reasonOf().includes("invalid appid or secret"), 10_000, "a refusal");
    await waitUntil(() => r.service.status()[0]?.state === "error", 10_000, "error state");
    // The attack works: the endpoint did quote the secret back.
    expect(echo.received()).toContain(`"clientSecret":"${SECRET}"`);
    expect(reasonOf()).toContain("[redacted]");
    expect(reasonOf()).not.toContain(SECRET);
    const status = r.service.status()[0];
    expect(status?.reason).toContain("invalid appid or secret");
    expect(status?.reason).toContain("[redacted]");
    expect(JSON.stringify(r.service.status())).not.toContain(SECRET);
  });
});
