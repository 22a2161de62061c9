/**
 * No RTC (issue 18): a reply refused because the platform's certificate is not yet valid
 * (the box's clock is behind until NTP syncs) is logged as a clock problem, and stays
 * pending for a retry; any other failure keeps the plain "reply not sent" line.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ChannelAdapter, Outbox } from "../../src/channels/index.ts";
import { startOutboxWorker } from "../../src/channels/outbox-worker.ts";
import { qqCapabilities } from "../../src/channels/qq/qq-capabilities.ts";
import { Store } from "../../src/store/index.ts";
import { CLOCK_HINT, createLogger } from "../../src/system/index.ts";
import { waitUntil } from "../fakes/qq-platform.ts";

let dir: string | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function logOfFailedSend(reason: string): Promise<{ line: string; state: string }> {
  dir = mkdtempSync(join(tmpdir(), "clawbox-outbox-clock-"));
  store = Store.open({ path: join(dir, "clawbox.db") });
  const outbox = new Outbox(store.db);
  const [id] = outbox.enqueue({ channel: "qq", chatType: "direct", peerId: "U1" }, ["hi"]).ids;
  const lines: string[] = [];
  const adapter: ChannelAdapter = {
    id: "qq",
    capabilities: qqCapabilities(false),
    start: async () => {},
    send: async () => ({ kind: "retry", reason }),
    stop: async () => {},
  };
  const worker = startOutboxWorker(
    outbox,
    () => new Map([["qq", adapter]]),
    createLogger({ write: (line) => lines.push(line) }),
  );
  await waitUntil(() => lines.length > 0, 5000, "the outbox warning");
  await worker.stop();
  const row = store.db.query("SELECT state FROM channel_outbox WHERE id = ?").get(id as number) as {
    state: string;
  };
  return { line: lines[0] ?? "", state: row.state };
}

describe("outbox worker", () => {
  it("names the clock when the certificate was not yet valid", async () => {
    const { line, state } = await logOfFailedSend(
      "QQ access token: cannot reach https://bots.qq.com/app/getAppAccessToken: certificate is not yet valid",
    );
    expect(line).toMatch(new RegExp(`^WARN  ${CLOCK_HINT.replace(/[()?]/g, "\\$&")} `));
    expect(state).toBe("pending");
  });

  it("keeps the plain line for other failures", async () => {
    const { line } = await logOfFailedSend("HTTP 500: internal error");
    expect(line).toMatch(/^WARN {2}reply not sent /);
    expect(line).not.toContain(CLOCK_HINT);
  });

  it("logs a reply that stays pending once, then at growing intervals, not at every retry", async () => {
    dir = mkdtempSync(join(tmpdir(), "clawbox-outbox-quiet-"));
    store = Store.open({ path: join(dir, "clawbox.db") });
    const db = store.db;
    const outbox = new Outbox(db);
    outbox.enqueue({ channel: "qq", chatType: "direct", peerId: "U1" }, ["hi"]);
    const lines: string[] = [];
    let sends = 0;
    const adapter: ChannelAdapter = {
      id: "qq",
      capabilities: qqCapabilities(false),
      start: async () => {},
      send: async () => {
        sends++;
        return { kind: "retry", reason: "certificate is not yet valid" };
      },
      stop: async () => {},
    };
    const worker = startOutboxWorker(
      outbox,
      () => new Map([["qq", adapter]]),
      createLogger({ write: (line) => lines.push(line) }),
    );
    for (let n = 1; n <= 20; n++) {
      await waitUntil(
        () =>
          sends >= n &&
          (db.query("SELECT state FROM channel_outbox").get() as { state: string }).state ===
            "pending",
        5000,
        `send ${n}`,
      );
      // Due again at once: twenty retries without waiting out the backoff.
      db.query("UPDATE channel_outbox SET next_attempt_at = 0").run();
      worker.wake();
    }
    await worker.stop();
    expect(sends).toBeGreaterThanOrEqual(20);
    expect(lines.map((l) => /"attempt":(\d+)/.exec(l)?.[1])).toEqual(["1", "2", "4", "8", "16"]);
  });
});
