import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.ts";

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
});
