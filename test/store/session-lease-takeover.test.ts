import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionLeases, Store } from "../../src/store/index.ts";

const KEY = "agent:main:cli:direct:owner";

function openStore(): Store {
  return Store.open({ path: join(mkdtempSync(join(tmpdir(), "clawbox-lease-")), "c.db") });
}

function plantLease(store: Store, pid: number, expiresAt: number): void {
  store.db.run(
    "INSERT OR REPLACE INTO session_leases(session_key, token, owner_pid, owner_host, acquired_at, expires_at) VALUES (?, 'other', ?, ?, ?, ?)",
    [KEY, pid, hostname(), Date.now(), expiresAt],
  );
}

describe("the session lease", () => {
  it("is exclusive while held, free again after release", () => {
    const store = openStore();
    try {
      const first = store.leases.tryAcquire(KEY);
      expect(first).toBeDefined();
      expect(store.leases.tryAcquire(KEY)).toBeUndefined();
      expect(store.leases.holder(KEY)?.pid).toBe(process.pid);
      first?.release();
      const second = store.leases.tryAcquire(KEY);
      expect(second).toBeDefined();
      second?.release();
    } finally {
      store.close();
    }
  });

  it("is taken over from a process that died holding it", () => {
    const store = openStore();
    try {
      const dead = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
      plantLease(store, Number(dead.stdout.trim()), Date.now() + 60_000);
      const lease = store.leases.tryAcquire(KEY);
      expect(lease).toBeDefined();
      lease?.release();
    } finally {
      store.close();
    }
  });

  it("is taken over when it expired, and respected while a live owner keeps it fresh", () => {
    const store = openStore();
    try {
      // process 1 (init) is alive: only the expiry can free its lease.
      plantLease(store, 1, Date.now() + 60_000);
      expect(store.leases.tryAcquire(KEY)).toBeUndefined();
      plantLease(store, 1, Date.now() - 1);
      const lease = store.leases.tryAcquire(KEY);
      expect(lease).toBeDefined();
      lease?.release();
    } finally {
      store.close();
    }
  });

  it("survives the wall clock's jump when NTP first syncs (no RTC): the boot clock decides", () => {
    const store = openStore();
    try {
      const held = store.leases.tryAcquire(KEY);
      expect(held).toBeDefined();
      // Another process of the same boot whose wall clock is now a year ahead.
      const afterJump = new SessionLeases(store.db, {
        wallMs: () => Date.now() + 365 * 86_400_000,
      });
      expect(afterJump.tryAcquire(KEY)).toBeUndefined();
      expect(afterJump.holder(KEY)?.pid).toBe(process.pid);
      // A process of another boot (or a system without a boot id) has only the wall clock.
      const otherBoot = new SessionLeases(store.db, {
        wallMs: () => Date.now() + 365 * 86_400_000,
        boot: { bootId: "another-boot", uptimeMs: () => 0 },
      });
      const taken = otherBoot.tryAcquire(KEY);
      expect(taken).toBeDefined();
      taken?.release();
      held?.release();
    } finally {
      store.close();
    }
  });

  it("still expires on the boot clock when the wall clock stands still or goes back", () => {
    const store = openStore();
    try {
      let uptime = 1_000_000;
      const boot = { bootId: "this-boot", uptimeMs: () => uptime };
      const frozenWall = () => 1_700_000_000_000;
      const holder = new SessionLeases(store.db, { wallMs: frozenWall, boot });
      // Held by a live process that stopped renewing (process 1 never exits).
      const lease = holder.tryAcquire(KEY, 60_000);
      expect(lease).toBeDefined();
      lease?.release();
      store.db.run(
        "INSERT OR REPLACE INTO session_leases(session_key, token, owner_pid, owner_host, acquired_at, expires_at, boot_id, expires_uptime_ms) VALUES (?, 'hung', 1, ?, ?, ?, 'this-boot', ?)",
        [KEY, hostname(), frozenWall(), frozenWall() + 60_000, uptime + 60_000],
      );
      const other = new SessionLeases(store.db, { wallMs: () => frozenWall() - 3_600_000, boot });
      expect(other.tryAcquire(KEY)).toBeUndefined();
      uptime += 60_001;
      const taken = other.tryAcquire(KEY);
      expect(taken).toBeDefined();
      taken?.release();
    } finally {
      store.close();
    }
  });

  it("renews the boot-clock expiry while held", async () => {
    const store = openStore();
    try {
      let uptime = 5_000;
      const boot = { bootId: "this-boot", uptimeMs: () => uptime };
      const lease = new SessionLeases(store.db, { boot }).tryAcquire(KEY, 150);
      expect(lease).toBeDefined();
      uptime += 1_000;
      // The holder renews every 50 ms: after a renewal the lease runs 150 ms past "now".
      await Bun.sleep(120);
      expect(new SessionLeases(store.db, { boot }).tryAcquire(KEY)).toBeUndefined();
      lease?.release();
    } finally {
      store.close();
    }
  });
});
