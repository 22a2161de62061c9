import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { channelDoctorChecks, Outbox, writeChannelState } from "../../src/channels/index.ts";
import { defaultConfig } from "../../src/config/index.ts";
import { Store } from "../../src/store/index.ts";
import { collectSecrets } from "../../src/system/index.ts";

let dir: string | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = undefined;
  dir = undefined;
});

const SECRET = "qq-client-secret-0123456789";

function setup() {
  dir = mkdtempSync(join(tmpdir(), "clawbox-doctor-outbox-"));
  store = Store.open({ path: join(dir, "clawbox.db") });
  const config = defaultConfig();
  config.channels.qq = {
    ...(config.channels.qq ?? {}),
    enabled: true,
    appId: "1020",
    clientSecret: SECRET,
    mode: "websocket",
    apiBase: "https://api.sgroup.qq.com",
    tokenUrl: "https://bots.qq.com/app/getAppAccessToken",
    markdown: false,
    allowFrom: [],
    groupPolicy: "mention",
    dmPolicy: "open",
  } as NonNullable<typeof config.channels.qq>;
  writeChannelState(store.db, "qq", "connected", undefined);
  return { outbox: new Outbox(store.db), config, db: store.db };
}

describe("doctor on failed or expired replies", () => {
  it("names the last failure's reason, redacted, and what to do", () => {
    const { outbox, config, db } = setup();
    const target = { channel: "qq", chatType: "direct" as const, peerId: "U1" };
    const [first] = outbox.enqueue(target, ["one"]).ids;
    const [second] = outbox.enqueue(target, ["two"]).ids;
    for (const [id, reason] of [
      [first, "HTTP 500 from QQ"],
      [second, `HTTP 401: token rejected (secret ${SECRET})`],
    ] as const) {
      db.query("UPDATE channel_outbox SET state = 'failed', reason = ? WHERE id = ?").run(
        reason,
        id ?? 0,
      );
    }
    const check = channelDoctorChecks(db, config.channels, collectSecrets(config)).find(
      (c) => c.name === "channel qq",
    );
    expect(check?.status).toBe("warn");
    expect(check?.message).toContain("2 failed or expired; the last failed at ");
    expect(check?.message).toContain("HTTP 401: token rejected");
    expect(check?.message).not.toContain(SECRET);
    expect(check?.message).not.toContain("HTTP 500");
    expect(check?.fix).toContain("check channels.qq");
  });

  it("explains an expired reply (the reply window closed)", () => {
    const { outbox, config, db } = setup();
    const [id] = outbox.enqueue(
      { channel: "qq", chatType: "direct", peerId: "U1" },
      ["late"],
      {},
      0,
    ).ids;
    db.query("UPDATE channel_outbox SET expires_at = 1 WHERE id = ?").run(id ?? 0);
    expect(outbox.expireIfLate(id ?? 0)).toBe(true);
    const check = channelDoctorChecks(db, config.channels, collectSecrets(config)).find(
      (c) => c.name === "channel qq",
    );
    expect(check?.message).toContain("the last expired at ");
    expect(check?.message).toContain("reply window closed before it could be sent");
    expect(check?.fix).toContain("reply window closed");
  });
});
