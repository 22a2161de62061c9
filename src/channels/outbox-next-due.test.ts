/**
 * Picking the next reply to send must not get slower with every stranger waiting for an
 * answer: the per-peer ordering check of `nextDue` is an index lookup on a real store
 * (with every migration applied), never a scan of the outbox. Speed itself is the
 * pairing-flood benchmark's (docs/BENCHMARKS.md); this checks the plan SQLite chose.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { Store } from "../store/index.ts";
import { nextDueSql, Outbox } from "./outbox.ts";

let dir: string;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clawbox-outbox-plan-"));
  store = Store.open({ path: join(dir, "clawbox.db") });
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

it("finds an older unsent part to the same peer by index, with many peers waiting", () => {
  const outbox = new Outbox(store.db);
  for (let i = 0; i < 100; i++)
    outbox.enqueue({ channel: "qq", chatType: "direct", peerId: `P${i}` }, ["try later"], {
      replyTo: `m${i}`,
    });
  const explain = store.db.prepare(`EXPLAIN QUERY PLAN ${nextDueSql(2)}`);
  const rows = explain.all(Date.now(), "qq", "wecom-bot") as { detail: string }[];
  explain.finalize();
  const plan = rows.map((row) => row.detail);
  const inner = plan.filter((d) => / e\b/.test(d));
  expect(inner, plan.join("\n")).toHaveLength(1);
  expect(inner[0]).toMatch(
    /^SEARCH e USING (COVERING )?INDEX channel_outbox_peer \(channel=\? AND peer_id=\?/,
  );
  expect(outbox.nextDue(["qq"])?.peerId).toBe("P0");
});
