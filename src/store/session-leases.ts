/**
 * Cross-process lock per session key, kept in SQLite: `clawbox run` and a `clawbox chat
 * --session` on the same key take turns instead of interleaving their transcripts.
 * A run takes the lease (a row: random token, owner pid and host, expiry), renews it
 * while it works, and deletes it at the end. A lease whose owner died (pid gone on this
 * host) or that was not renewed in time is taken over, so a kill -9 never wedges a
 * session. The in-process queue still orders runs inside one process; this orders
 * processes. Between processes of one boot, "in time" is judged on the boot clock, so
 * the wall clock's jump when NTP first syncs (a Pi has no RTC) frees no live lease.
 */
import type { Database } from "bun:sqlite";
import { hostname } from "node:os";
import { ClawboxError } from "../errors/index.ts";
import { type BootClock, processAlive, systemBootClock } from "../system/index.ts";

export interface LeaseOptions {
  /** How long a lease lives without renewal (default 60 s; renewed every third of it). */
  ttlMs?: number;
  /** Poll interval while another process holds the key (default 200 ms). */
  pollMs?: number;
  signal?: AbortSignal;
  /** Called once when the key is busy in another process (e.g. to tell the user). */
  onWait?: (holder: LeaseHolder) => void;
}

export interface LeaseHolder {
  pid: number;
  host: string;
  expiresAt: number;
}

export interface Lease {
  readonly sessionKey: string;
  release(): void;
}

interface LeaseRow {
  token: string;
  owner_pid: number;
  owner_host: string;
  expires_at: number;
  boot_id: string | null;
  expires_uptime_ms: number | null;
}

export interface LeaseClocks {
  /** Wall clock in ms (default Date.now). */
  wallMs?: () => number;
  boot?: BootClock;
}

const ROW_COLUMNS = "token, owner_pid, owner_host, expires_at, boot_id, expires_uptime_ms";

const HOST = hostname();

export class SessionLeases {
  private readonly wallMs: () => number;
  private readonly boot: BootClock;

  constructor(
    private readonly db: Database,
    clocks: LeaseClocks = {},
  ) {
    this.wallMs = clocks.wallMs ?? Date.now;
    this.boot = clocks.boot ?? systemBootClock;
  }

  private row(sessionKey: string): LeaseRow | null {
    return this.db
      .query(`SELECT ${ROW_COLUMNS} FROM session_leases WHERE session_key = ?`)
      .get(sessionKey) as LeaseRow | null;
  }

  /** The live holder of `sessionKey`, if any (dead or expired holders do not count). */
  holder(sessionKey: string): LeaseHolder | undefined {
    const row = this.row(sessionKey);
    if (!row || !this.live(row)) return undefined;
    return { pid: row.owner_pid, host: row.owner_host, expiresAt: row.expires_at };
  }

  private live(row: LeaseRow): boolean {
    if (row.owner_host === HOST && !processAlive(row.owner_pid)) return false;
    // Written in this boot: the boot clock decides, whatever the wall clock did since.
    if (this.boot.bootId && row.boot_id === this.boot.bootId && row.expires_uptime_ms !== null) {
      return row.expires_uptime_ms > this.boot.uptimeMs();
    }
    return row.expires_at > this.wallMs();
  }

  /** Takes the lease now, or returns undefined when another live owner holds it. */
  tryAcquire(sessionKey: string, ttlMs = 60_000): Lease | undefined {
    const token = crypto.randomUUID();
    const now = this.wallMs();
    const taken = this.db
      .transaction(() => {
        const row = this.row(sessionKey);
        if (row && this.live(row)) return false;
        this.db.run(
          `INSERT OR REPLACE INTO session_leases(session_key, token, owner_pid, owner_host, acquired_at, expires_at, boot_id, expires_uptime_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            sessionKey,
            token,
            process.pid,
            HOST,
            now,
            now + ttlMs,
            this.boot.bootId ?? null,
            this.boot.uptimeMs() + ttlMs,
          ],
        );
        return true;
      })
      .immediate();
    if (!taken) return undefined;
    const renew = setInterval(
      () => {
        try {
          this.db.run(
            "UPDATE session_leases SET expires_at = ?, expires_uptime_ms = ? WHERE session_key = ? AND token = ?",
            [this.wallMs() + ttlMs, this.boot.uptimeMs() + ttlMs, sessionKey, token],
          );
        } catch {
          // A closed or busy database: the lease simply expires.
        }
      },
      Math.max(50, Math.floor(ttlMs / 3)),
    );
    renew.unref();
    let released = false;
    return {
      sessionKey,
      release: () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        try {
          this.db.run("DELETE FROM session_leases WHERE session_key = ? AND token = ?", [
            sessionKey,
            token,
          ]);
        } catch {
          // Closed database: the lease expires on its own.
        }
      },
    };
  }

  /** Waits until the lease is free (or taken over) and takes it. Rejects with ABORTED on abort. */
  async acquire(sessionKey: string, options: LeaseOptions = {}): Promise<Lease> {
    const pollMs = options.pollMs ?? 200;
    let told = false;
    for (;;) {
      if (options.signal?.aborted)
        throw new ClawboxError("ABORTED", "aborted while waiting for the session");
      const lease = this.tryAcquire(sessionKey, options.ttlMs);
      if (lease) return lease;
      if (!told) {
        told = true;
        const holder = this.holder(sessionKey);
        if (holder) options.onWait?.(holder);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, pollMs);
        function done() {
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", done);
          resolve();
        }
        options.signal?.addEventListener("abort", done, { once: true });
      });
    }
  }
}
